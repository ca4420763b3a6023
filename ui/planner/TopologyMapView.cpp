#include "ui/planner/TopologyMapView.h"

#include "ui/planner/PlannerColors.h"
#include "ui/planner/PlannerFormat.h"

#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QShortcut>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <optional>

namespace tessera::planner {

namespace {

constexpr double kGpu = 12, kGpuGap = 3, kNodeGap = 10, kHeader = 14;
constexpr int kGpuColumns = 4, kNodeColumnsPerLeaf = 4;
constexpr double kSpineY = 0, kLeafY = 110, kNodesY = 220;
// Beyond this many nodes the scene gets slow and unreadable; the rest are counted, not drawn.
constexpr int kMaxDrawnNodes = 1024;

const QColor kIdleGpu(0x9e, 0xb3, 0xc8);
const QColor kPlacedGpu(0xff, 0x6f, 0x00);
const QColor kNvlink(0x2e, 0x7d, 0x32);
const QString kDefaultCaption = QStringLiteral("GPUs of the selected placement");

// Stacking order: links under everything, then boxes, then labels on their own backgrounds, so
// a line never runs through a label's text.
constexpr double kLinkZ = -1, kLabelBackgroundZ = 5, kLabelZ = 6;

QString bandwidth(double gbytesPerSec) { return bandwidthText(gbytesPerSec); }

// The map's colours from the widget's palette, so it follows the terminal's theme.
struct MapColours {
  QColor background, text, muted, switchFill, switchText, nodeFill, link;
  static MapColours of(const QPalette& p) {
    const bool dark = p.color(QPalette::Base).lightness() < 128;
    MapColours c;
    c.background = p.color(QPalette::Base);
    c.text = p.color(QPalette::Text);
    c.muted = dark ? QColor(0xb0, 0xbe, 0xc5) : QColor(0x37, 0x47, 0x4f);
    c.switchFill = dark ? QColor(0x45, 0x5a, 0x64) : QColor(0xcf, 0xd8, 0xdc);
    c.switchText = dark ? QColor(0xec, 0xef, 0xf1) : QColor(0x26, 0x32, 0x38);
    c.nodeFill = p.color(QPalette::AlternateBase);
    c.link = dark ? QColor(0x78, 0x90, 0x9c) : QColor(0x60, 0x7d, 0x8b);
    return c;
  }
};

// A label; with a background colour it sits on an opaque box of it above the links.
QGraphicsSimpleTextItem* addLabel(QGraphicsScene* scene, const QString& text, QPointF at, int pointSize,
                                  const QColor& color, bool centred = true,
                                  std::optional<QColor> background = std::nullopt) {
  auto* item = scene->addSimpleText(text);
  QFont f = item->font();
  f.setPointSize(pointSize);
  item->setFont(f);
  item->setBrush(color);
  const QRectF r = item->boundingRect();
  item->setPos(centred ? at - QPointF(r.width() / 2, r.height() / 2) : at);
  if (background) {
    auto* box = scene->addRect(item->mapRectToScene(r).adjusted(-3, -1, 3, 1), Qt::NoPen, *background);
    box->setZValue(kLabelBackgroundZ);
    box->setData(0, QStringLiteral("label background"));
    item->setZValue(kLabelZ);
  }
  return item;
}

}  // namespace

TopologyMapView::TopologyMapView(QWidget* parent) : QGraphicsView(parent) {
  setScene(new QGraphicsScene(this));
  setRenderHint(QPainter::Antialiasing);
  setDragMode(QGraphicsView::ScrollHandDrag);
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  setBackgroundBrush(palette().color(QPalette::Base));
  auto* in = new QShortcut(QKeySequence::ZoomIn, this);
  auto* in2 = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_Equal), this);
  auto* out = new QShortcut(QKeySequence::ZoomOut, this);
  auto* fit = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_0), this);
  for (auto* s : {in, in2, out, fit}) s->setContext(Qt::WidgetWithChildrenShortcut);
  connect(in, &QShortcut::activated, this, &TopologyMapView::zoomIn);
  connect(in2, &QShortcut::activated, this, &TopologyMapView::zoomIn);
  connect(out, &QShortcut::activated, this, &TopologyMapView::zoomOut);
  connect(fit, &QShortcut::activated, this, &TopologyMapView::fitAll);
}

void TopologyMapView::setTopology(const cost::Topology& topology) {
  topology_ = topology;
  placement_.reset();
  caption_ = kDefaultCaption;
  rebuild();
}

void TopologyMapView::setPlacement(const cost::Placement& placement) {
  if (cost::validate(topology_, placement))
    placement_.reset();
  else
    placement_ = placement;
  applyHighlight();
}

void TopologyMapView::setPlacementCaption(const QString& caption) {
  caption_ = caption;
  if (captionItem_) captionItem_->setText("orange: " + caption);
}

void TopologyMapView::clearPlacement() {
  placement_.reset();
  applyHighlight();
}

int TopologyMapView::gpuItemCount() const {
  int n = 0;
  for (const auto& node : gpuItems_) n += static_cast<int>(node.size());
  return n;
}

double TopologyMapView::zoom() const { return transform().m11(); }

void TopologyMapView::zoomIn() {
  userZoomed_ = true;
  scale(1.25, 1.25);
}
void TopologyMapView::zoomOut() {
  userZoomed_ = true;
  scale(0.8, 0.8);
}

void TopologyMapView::fitAll() {
  userZoomed_ = false;
  if (!scene()->items().isEmpty()) fitInView(sceneRect(), Qt::KeepAspectRatio);
}

void TopologyMapView::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);
  if (!userZoomed_) fitAll();
}

void TopologyMapView::changeEvent(QEvent* event) {
  QGraphicsView::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) {
    const bool keepZoom = userZoomed_;
    const QTransform zoomed = transform();
    rebuild();
    if (keepZoom) {
      setTransform(zoomed);
      userZoomed_ = true;
    }
  }
}

void TopologyMapView::wheelEvent(QWheelEvent* event) {
  const double steps = event->angleDelta().y() / 120.0;
  const double factor = std::pow(1.2, steps);
  const double next = zoom() * factor;
  if (next > 0.02 && next < 40) scale(factor, factor);
  userZoomed_ = true;
  event->accept();
}

void TopologyMapView::showEvent(QShowEvent* event) {
  QGraphicsView::showEvent(event);
  if (!fitted_) {
    fitAll();
    fitted_ = true;
  }
}

void TopologyMapView::rebuild() {
  QGraphicsScene* s = scene();
  s->clear();
  captionItem_ = nullptr;
  nodeItems_.clear();
  gpuItems_.clear();
  switches_ = domains_ = linkLabels_ = drawnNodes_ = undrawnNodes_ = 0;
  highlighted_ = 0;
  fitted_ = false;
  const cost::Topology& t = topology_;
  if (t.sites.empty() || t.gpusPerNode <= 0) return;

  const int gpuCols = std::min(kGpuColumns, t.gpusPerNode);
  const int gpuRows = (t.gpusPerNode + kGpuColumns - 1) / kGpuColumns;
  const double nodeW = gpuCols * (kGpu + kGpuGap) + kGpuGap;
  const double nodeH = kHeader + gpuRows * (kGpu + kGpuGap) + kGpuGap;
  const int perLeaf = std::max(1, t.fabric.nodesPerLeaf);
  const int nodeCols = std::min(kNodeColumnsPerLeaf, perLeaf);
  const double leafColumnW = nodeCols * (nodeW + kNodeGap) + 30;

  const MapColours colours = MapColours::of(palette());
  setBackgroundBrush(colours.background);
  const QPen linkPen(colours.link, 1.2);
  const QPen switchPen(colours.muted, 1.5);
  const QColor accel = acceleratorColor(t.accelerator);
  const double nodeFabric = t.fabric.nodeGBps();

  nodeItems_.resize(t.nodeCount(), nullptr);
  gpuItems_.resize(t.nodeCount());
  std::vector<QRectF> nodeRects(t.nodeCount());
  std::vector<QPointF> siteSpineCentres;

  double siteX = 0;
  int firstLeafNode = 0;
  for (int site = 0; site < static_cast<int>(t.sites.size()); ++site) {
    const int leaves = cost::leavesInSite(t, site);
    const double siteW = leaves * leafColumnW;
    const int siteFirstNode = cost::firstNodeOfSite(t, site);
    firstLeafNode = siteFirstNode;

    // Spines across the top of the site.
    const int spines = std::max(0, t.fabric.spinesPerSite);
    std::vector<QPointF> spineCentres;
    const double spineW = 70, spineH = 26;
    for (int sp = 0; sp < spines; ++sp) {
      const double cx = siteX + (sp + 0.5) * siteW / spines;
      auto* r = s->addRect(cx - spineW / 2, kSpineY, spineW, spineH, switchPen, colours.switchFill);
      r->setToolTip(QString("spine %1").arg(sp));
      addLabel(s, QString("spine %1").arg(sp), {cx, kSpineY + spineH / 2}, 9, colours.switchText);
      spineCentres.push_back({cx, kSpineY + spineH});
      ++switches_;
    }
    addLabel(s,
             QString::fromStdString(t.sites[site].name) + "  (" + countText(t.sites[site].nodes, "node", "nodes") + ")",
             {siteX + siteW / 2, kSpineY - 40}, 11, colours.text, true, colours.background);
    siteSpineCentres.push_back({siteX + siteW / 2, kSpineY - 14});

    for (int leaf = 0; leaf < leaves; ++leaf) {
      const int nodesHere = std::min(perLeaf, t.sites[site].nodes - leaf * perLeaf);
      const double lx = siteX + leaf * leafColumnW;
      const double cx = lx + leafColumnW / 2;
      const double leafW = 80, leafH = 26;
      for (const QPointF& sp : spineCentres) s->addLine(QLineF(QPointF(cx, kLeafY), sp), linkPen)->setZValue(kLinkZ);
      auto* leafItem = s->addRect(cx - leafW / 2, kLeafY, leafW, leafH, switchPen, colours.switchFill);
      leafItem->setToolTip(QString("leaf %1: %2").arg(leaf).arg(countText(nodesHere, "node", "nodes")));
      addLabel(s, QString("leaf %1").arg(leaf), {cx, kLeafY + leafH / 2}, 9, colours.switchText);
      ++switches_;
      if (!spineCentres.empty()) {
        const double uplink = nodesHere * nodeFabric / t.fabric.oversubscription;
        QString text = "up " + bandwidth(uplink);
        if (t.fabric.oversubscription > 1) text += QString(" (%1:1)").arg(t.fabric.oversubscription, 0, 'g', 2);
        addLabel(s, text, {cx, kLeafY - 16}, 10, colours.muted, true, colours.background);
        ++linkLabels_;
      }
      // Node grid under the leaf, with one trunk line carrying the per-node link label.
      const double gridTop = kNodesY;
      const int rows = (nodesHere + nodeCols - 1) / nodeCols;
      const double gridBottom = gridTop + rows * (nodeH + kNodeGap);
      s->addLine(QLineF(cx, kLeafY + leafH, cx, gridTop - 6), linkPen)->setZValue(kLinkZ);
      s->addLine(QLineF(lx + 10, gridTop - 6, lx + leafColumnW - 20, gridTop - 6), linkPen)->setZValue(kLinkZ);
      addLabel(s,
               QString("%1 x %2 Gb/s = %3 per node")
                   .arg(t.fabric.railsPerNode)
                   .arg(t.fabric.gbpsPerRail, 0, 'g', 4)
                   .arg(bandwidth(nodeFabric)),
               {cx, (kLeafY + leafH + gridTop) / 2}, 10, colours.muted, true, colours.background);
      ++linkLabels_;
      Q_UNUSED(gridBottom);

      for (int k = 0; k < nodesHere; ++k) {
        const int node = firstLeafNode + k;
        if (drawnNodes_ >= kMaxDrawnNodes) {
          ++undrawnNodes_;
          continue;
        }
        ++drawnNodes_;
        const double nx = lx + 10 + (k % nodeCols) * (nodeW + kNodeGap);
        const double ny = gridTop + (k / nodeCols) * (nodeH + kNodeGap);
        auto* box = s->addRect(nx, ny, nodeW, nodeH, QPen(accel.darker(130), 1), colours.nodeFill);
        box->setToolTip(QString("node %1 (%2 x %3)")
                            .arg(node)
                            .arg(t.gpusPerNode)
                            .arg(QString::fromUtf8(toString(t.accelerator).data())));
        nodeItems_[node] = box;
        nodeRects[node] = box->rect();
        addLabel(s, QString("n%1").arg(node), {nx + 3, ny + 1}, 6, colours.muted, false);
        for (int g = 0; g < t.gpusPerNode; ++g) {
          const double gx = nx + kGpuGap + (g % kGpuColumns) * (kGpu + kGpuGap);
          const double gy = ny + kHeader + (g / kGpuColumns) * (kGpu + kGpuGap);
          auto* gpu = s->addRect(gx, gy, kGpu, kGpu, Qt::NoPen, kIdleGpu);
          gpuItems_[node].push_back(gpu);
        }
      }
      firstLeafNode += nodesHere;
    }
    siteX += siteW + 120;
  }

  // NVLink domains: one outline around the nodes that share a domain.
  const int perDomain = std::max(1, t.nodesPerNvlinkDomain);
  std::vector<QRectF> domainRects;
  for (int node = 0; node < t.nodeCount(); ++node) {
    const int d = cost::locate(t, node).nvlinkDomain;
    if (d >= static_cast<int>(domainRects.size())) domainRects.resize(d + 1);
    domainRects[d] = domainRects[d].isNull() ? nodeRects[node] : domainRects[d].united(nodeRects[node]);
  }
  QPen domainPen(kNvlink, perDomain > 1 ? 2.0 : 1.4, Qt::DashLine);
  for (const QRectF& r : domainRects) {
    if (r.isNull() || r.isEmpty()) continue;
    auto* outline = s->addRect(r.adjusted(-3, -3, 3, 3), domainPen, Qt::NoBrush);
    outline->setZValue(2);
    ++domains_;
  }
  // One legend line explains the outline and the NVLink bandwidth.
  const QRectF all = s->itemsBoundingRect();
  QString nvText = QString("dashed green: NVLink domain (%1, %2 per GPU, %3)")
                       .arg(QString::fromUtf8(toString(t.intraNodeLink).data()))
                       .arg(bandwidth(t.intraNodeGBpsPerGpu))
                       .arg(countText(perDomain, "node", "nodes"));
  const bool dark = colours.background.lightness() < 128;
  addLabel(s, nvText, {all.left(), all.bottom() + 14}, 9, dark ? kNvlink.lighter(170) : kNvlink, false);
  captionItem_ = addLabel(s, "orange: " + caption_, {all.left(), all.bottom() + 34}, 9,
                          dark ? kPlacedGpu : kPlacedGpu.darker(120), false);
  if (undrawnNodes_ > 0)
    addLabel(s, QString("%1 more nodes not drawn (the map draws the first %2)").arg(undrawnNodes_).arg(kMaxDrawnNodes),
             {all.left(), all.bottom() + 54}, 9, dark ? QColor(0xef, 0x9a, 0x9a) : QColor(Qt::darkRed), false);
  addLabel(s,
           QString::fromStdString(t.name) + QString("  —  %1 x %2 GPUs, %3 fabric")
                                                .arg(countText(t.nodeCount(), "node", "nodes"))
                                                .arg(t.gpusPerNode)
                                                .arg(QString::fromUtf8(toString(t.fabric.fabricClass).data())),
           {all.left(), kSpineY - 80}, 13, colours.text, false);

  // Site interconnect.
  for (std::size_t i = 1; i < siteSpineCentres.size(); ++i) {
    const QPointF a = siteSpineCentres[i - 1], b = siteSpineCentres[i];
    s->addLine(QLineF(a, b), QPen(QColor(0xd8, 0x1b, 0x60), 3, Qt::DashDotLine))->setZValue(kLinkZ - 1);
    addLabel(s,
             QString("inter-site %1, %2 ms").arg(bandwidth(t.interSite.gbps / 8)).arg(t.interSite.latencyMs, 0, 'g', 3),
             {(a.x() + b.x()) / 2, a.y() - 14}, 10, dark ? QColor(0xf4, 0x8f, 0xb1) : QColor(0xad, 0x14, 0x57), true,
             colours.background);
    ++linkLabels_;
  }
  s->setSceneRect(s->itemsBoundingRect().adjusted(-40, -40, 40, 40));
  applyHighlight();
  if (isVisible()) {
    fitAll();
    fitted_ = true;
  }
}

void TopologyMapView::applyHighlight() {
  highlighted_ = 0;
  for (std::size_t n = 0; n < gpuItems_.size(); ++n) {
    for (auto* g : gpuItems_[n]) g->setBrush(kIdleGpu);
    if (nodeItems_[n]) nodeItems_[n]->setPen(QPen(acceleratorColor(topology_.accelerator).darker(130), 1));
  }
  if (!placement_) return;
  for (const cost::PlacedNode& p : placement_->nodes) {
    if (p.node < 0 || p.node >= static_cast<int>(gpuItems_.size())) continue;
    for (int g = 0; g < p.gpus && g < static_cast<int>(gpuItems_[p.node].size()); ++g) {
      gpuItems_[p.node][g]->setBrush(kPlacedGpu);
      ++highlighted_;
    }
    if (nodeItems_[p.node]) nodeItems_[p.node]->setPen(QPen(kPlacedGpu, 2.5));
  }
}

}  // namespace tessera::planner
