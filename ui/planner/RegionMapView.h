#pragma once
// The listed clusters on a simple world layout, placed by region and coloured by accelerator,
// sized by GPU count. Not a geographic map: just enough to see where capacity sits.
#include "core/domain/Cluster.h"

#include <QGraphicsView>
#include <QPointF>

#include <string>
#include <vector>

namespace tessera::planner {

// Where a region string ("us-east", "eu-north-1", "ap-southeast") sits on the layout;
// unknown regions go to an "elsewhere" strip, so nothing is hidden.
QPointF regionAnchor(const std::string& region, bool* known = nullptr);

class RegionMapView : public QGraphicsView {
  Q_OBJECT

 public:
  explicit RegionMapView(QWidget* parent = nullptr);

  void setClusters(const std::vector<Cluster>& clusters);
  int clusterItemCount() const { return clusterItems_; }
  int unplacedCount() const { return unplaced_; }

 protected:
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;

 private:
  void drawBackground();
  int clusterItems_ = 0;
  int unplaced_ = 0;
};

}  // namespace tessera::planner
