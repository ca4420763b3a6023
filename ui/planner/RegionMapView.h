#pragma once
// The listed clusters on a simple world layout, placed by region and coloured by accelerator,
// sized by GPU count. Not a geographic map: just enough to see where capacity sits. Cluster
// labels keep their size on screen and are laid out in the view after every resize or zoom:
// each takes the first free place around its dot (right, left, above, below, then a row or
// more away with a leader line), so no two labels overlap at any size; a label with no free
// place is hidden (its dot's tooltip still names the cluster). Colours follow the palette.
#include "core/domain/Cluster.h"

#include <QGraphicsView>
#include <QPointF>
#include <QRect>

#include <string>
#include <vector>

class QGraphicsEllipseItem;
class QGraphicsLineItem;
class QGraphicsSimpleTextItem;

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
  // The shown cluster labels' rectangles in viewport pixels, read from the items on screen.
  std::vector<QRect> labelRects() const;
  int hiddenLabelCount() const { return hiddenLabels_; }

 protected:
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void changeEvent(QEvent* event) override;
  void scrollContentsBy(int dx, int dy) override;

 private:
  void drawBackground();
  void layoutLabels();

  struct Placed {
    QGraphicsEllipseItem* dot;
    QGraphicsSimpleTextItem* label;
    QGraphicsLineItem* leader;
  };
  std::vector<Cluster> clusters_;
  std::vector<Placed> placed_;
  int clusterItems_ = 0;
  int unplaced_ = 0;
  int hiddenLabels_ = 0;
};

}  // namespace tessera::planner
