#pragma once
// Draws a cluster topology: spine and leaf switches, nodes as boxes of GPU squares, NVLink
// domain outlines, links labelled with their bandwidth; highlights a contract's placement.
// Zoom with the mouse wheel or Ctrl+= / Ctrl+-, Ctrl+0 fits the whole cluster. Colours follow
// the palette (the terminal's theme); link labels sit on their own background above the links.
#include "core/cost/Placement.h"
#include "core/cost/Topology.h"

#include <QGraphicsView>

#include <optional>
#include <vector>

class QGraphicsRectItem;
class QGraphicsSimpleTextItem;

namespace tessera::planner {

class TopologyMapView : public QGraphicsView {
  Q_OBJECT

 public:
  explicit TopologyMapView(QWidget* parent = nullptr);

  void setTopology(const cost::Topology& topology);
  // Highlights the placement's GPUs; an invalid placement clears the highlight.
  void setPlacement(const cost::Placement& placement);
  void clearPlacement();
  // What the highlighted GPUs are, in the map's legend (set after setTopology, which resets it
  // to "GPUs of the selected placement"; kept through a theme change).
  void setPlacementCaption(const QString& caption);
  QString placementCaption() const { return caption_; }

  const cost::Topology& topology() const { return topology_; }
  int nodeItemCount() const { return drawnNodes_; }
  int undrawnNodeCount() const { return undrawnNodes_; }
  int gpuItemCount() const;
  int highlightedGpuCount() const { return highlighted_; }
  int switchItemCount() const { return switches_; }
  int nvlinkDomainItemCount() const { return domains_; }
  int linkLabelCount() const { return linkLabels_; }
  double zoom() const;

 public slots:
  void zoomIn();
  void zoomOut();
  void fitAll();

 protected:
  void wheelEvent(QWheelEvent* event) override;
  void showEvent(QShowEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  // The map takes its colours from the palette: a theme change redraws it.
  void changeEvent(QEvent* event) override;

 private:
  void rebuild();
  void applyHighlight();

  cost::Topology topology_;
  std::optional<cost::Placement> placement_;
  QString caption_ = QStringLiteral("GPUs of the selected placement");
  QGraphicsSimpleTextItem* captionItem_ = nullptr;
  std::vector<QGraphicsRectItem*> nodeItems_;
  std::vector<std::vector<QGraphicsRectItem*>> gpuItems_;  // [node][gpu]
  int highlighted_ = 0;
  int switches_ = 0;
  int domains_ = 0;
  int linkLabels_ = 0;
  int drawnNodes_ = 0;
  int undrawnNodes_ = 0;
  bool fitted_ = false;
  bool userZoomed_ = false;  // the wheel or a zoom key was used: resizing keeps the user's zoom
};

}  // namespace tessera::planner
