#include "ui/planner/RegionMapView.h"

#include "ui/planner/PlannerColors.h"

#include <QEvent>
#include <QGraphicsEllipseItem>
#include <QGraphicsLineItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace tessera::planner {

namespace {

struct Anchor {
  const char* prefix;
  QPointF at;
};

// Longest prefix wins, so "eu-north" beats "eu".
const Anchor kAnchors[] = {
    {"us-west", {60, 110}},  {"us-central", {150, 195}}, {"us-east", {250, 135}},      {"us-south", {190, 250}},
    {"us", {160, 160}},      {"ca", {170, 70}},          {"sa", {290, 380}},           {"br", {310, 370}},
    {"eu-west", {470, 120}}, {"eu-north", {530, 60}},    {"eu-central", {545, 125}},   {"eu-south", {535, 175}},
    {"eu", {520, 120}},      {"uk", {470, 95}},          {"me", {640, 215}},           {"af", {540, 320}},
    {"in", {720, 240}},      {"ap-south", {720, 240}},   {"ap-southeast", {800, 300}}, {"sg", {800, 300}},
    {"ap-east", {810, 200}}, {"cn", {790, 170}},         {"ap-northeast", {880, 150}}, {"jp", {890, 150}},
    {"kr", {860, 150}},      {"au", {880, 420}},         {"ap", {820, 230}},
};

struct Landmass {
  QRectF rect;
  const char* name;
};

const Landmass kLand[] = {
    {{30, 40, 290, 230}, "North America"}, {{230, 290, 130, 170}, "South America"}, {{430, 30, 170, 170}, "Europe"},
    {{460, 220, 150, 190}, "Africa"},      {{610, 30, 320, 310}, "Asia"},           {{820, 370, 130, 90}, "Oceania"},
};

const QPointF kElsewhere(60, 500);

bool darkPalette(const QPalette& p) { return p.color(QPalette::Base).lightness() < 128; }

// Marks the map's own text (region names, legend) that cluster labels must keep clear of.
constexpr int kObstacleKey = 0;

}  // namespace

QPointF regionAnchor(const std::string& region, bool* known) {
  std::size_t best = 0;
  QPointF at = kElsewhere;
  for (const Anchor& a : kAnchors) {
    const std::string prefix = a.prefix;
    if (region.rfind(prefix, 0) == 0 && prefix.size() > best &&
        (region.size() == prefix.size() || region[prefix.size()] == '-' ||
         std::isdigit(static_cast<unsigned char>(region[prefix.size()])))) {
      best = prefix.size();
      at = a.at;
    }
  }
  if (known) *known = best > 0;
  return at;
}

RegionMapView::RegionMapView(QWidget* parent) : QGraphicsView(parent) {
  setScene(new QGraphicsScene(this));
  setRenderHint(QPainter::Antialiasing);
  setDragMode(QGraphicsView::ScrollHandDrag);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setClusters({});
}

void RegionMapView::drawBackground() {
  QGraphicsScene* s = scene();
  const bool dark = darkPalette(palette());
  setBackgroundBrush(dark ? palette().color(QPalette::Base) : QColor(0xe3, 0xf2, 0xfd));
  const QColor land = dark ? QColor(0x33, 0x38, 0x40) : QColor(0xf5, 0xf5, 0xf0);
  const QColor coast = dark ? QColor(0x4a, 0x52, 0x5c) : QColor(0xb0, 0xbe, 0xc5);
  const QColor name = dark ? QColor(0x8a, 0x96, 0xa3) : QColor(0x90, 0xa4, 0xae);
  for (const Landmass& l : kLand) {
    auto* r = s->addRect(l.rect, QPen(coast), land);
    r->setZValue(-10);
    auto* t = s->addSimpleText(l.name);
    t->setBrush(name);
    t->setPos(l.rect.topLeft() + QPointF(6, 4));
    t->setZValue(-9);
    t->setData(kObstacleKey, true);
  }
  auto* e = s->addSimpleText("elsewhere / unknown region");
  e->setBrush(name);
  e->setPos(kElsewhere + QPointF(-30, -35));
  e->setData(kObstacleKey, true);
}

void RegionMapView::setClusters(const std::vector<Cluster>& clusters) {
  clusters_ = clusters;
  QGraphicsScene* s = scene();
  s->clear();
  placed_.clear();
  drawBackground();
  clusterItems_ = unplaced_ = 0;
  const bool dark = darkPalette(palette());
  const QColor text = palette().color(QPalette::Text);
  std::map<std::pair<int, int>, double> stacked;  // how far down (or across) an anchor is taken
  std::set<Accelerator> seen;
  for (const Cluster& c : clusters) {
    bool known = false;
    QPointF at = regionAnchor(c.region, &known);
    if (!known) ++unplaced_;
    const auto key = std::make_pair(static_cast<int>(at.x()), static_cast<int>(at.y()));
    const double radius = 5 + 2.0 * std::sqrt(static_cast<double>(c.totalGpus()) / 64.0);
    // Clusters in one region fan out in a column, each dot below the last one's.
    double& taken = stacked[key];
    const double step = 2 * radius + 4;
    at += QPointF(known ? 0 : taken, known ? taken + radius : 0);
    taken += known ? step : 2 * radius + 8;
    const QColor colour = acceleratorColor(c.accelerator);
    auto* dot =
        s->addEllipse(at.x() - radius, at.y() - radius, 2 * radius, 2 * radius, QPen(colour.darker(140), 1.2), colour);
    dot->setZValue(1);
    dot->setToolTip(QString("%1 (%2): %3 x %4, %5")
                        .arg(QString::fromStdString(c.name), QString::fromStdString(c.region))
                        .arg(c.totalGpus())
                        .arg(QString::fromUtf8(toString(c.accelerator).data()))
                        .arg(QString::fromUtf8(toString(c.fabric).data())));
    // Labels keep their size on screen; layoutLabels() places them in viewport pixels.
    auto* label = s->addSimpleText(QString("%1  %2 GPUs").arg(QString::fromStdString(c.name)).arg(c.totalGpus()));
    QFont f = label->font();
    f.setPointSize(8);
    label->setFont(f);
    label->setBrush(text);
    label->setFlag(QGraphicsItem::ItemIgnoresTransformations);
    label->setZValue(3);
    auto* leader = s->addLine(QLineF(), QPen(dark ? QColor(0x8a, 0x96, 0xa3) : QColor(0x78, 0x90, 0x9c), 0.8));
    leader->setZValue(2);
    leader->setVisible(false);
    placed_.push_back({dot, label, leader});
    seen.insert(c.accelerator);
    ++clusterItems_;
  }
  // Legend: accelerators present, under the map's southern landmasses (inside the scene rect).
  double y = 478;
  auto* title = s->addSimpleText("accelerator (dot size: GPUs)");
  title->setBrush(text);
  title->setPos(640, y - 22);
  title->setData(kObstacleKey, true);
  int column = 0;
  for (Accelerator a : seen) {
    const QColor colour = acceleratorColor(a);
    const double x = 640 + (column % 3) * 110;
    s->addEllipse(x, y, 12, 12, QPen(colour.darker(140)), colour);
    auto* name = s->addSimpleText(QString::fromUtf8(toString(a).data()));
    name->setBrush(text);
    name->setPos(x + 18, y - 2);
    name->setData(kObstacleKey, true);
    if (++column % 3 == 0) y += 18;
  }
  QRectF bounds(0, -10, 980, 560);
  for (QGraphicsItem* item : s->items())
    if (!(item->flags() & QGraphicsItem::ItemIgnoresTransformations)) bounds = bounds.united(item->sceneBoundingRect());
  s->setSceneRect(bounds);
  fitInView(sceneRect(), Qt::KeepAspectRatio);
  layoutLabels();
}

std::vector<QRect> RegionMapView::labelRects() const {
  std::vector<QRect> rects;
  for (const Placed& p : placed_)
    if (p.label->isVisible())
      rects.push_back(QRect(mapFromScene(p.label->scenePos()), p.label->boundingRect().size().toSize()));
  return rects;
}

void RegionMapView::layoutLabels() {
  hiddenLabels_ = 0;
  const QRect area = viewport()->rect();
  std::vector<QRect> taken;  // viewport pixels: the map's own text, every dot, placed labels
  for (QGraphicsItem* item : scene()->items())
    if (item->data(kObstacleKey).toBool()) taken.push_back(mapFromScene(item->sceneBoundingRect()).boundingRect());
  for (const Placed& p : placed_) taken.push_back(mapFromScene(p.dot->sceneBoundingRect()).boundingRect());
  const auto isFree = [&](const QRect& r) {
    if (!area.contains(r)) return false;
    const QRect padded = r.adjusted(-1, -1, 1, 1);  // a pixel of air, and room for rounding
    return std::none_of(taken.begin(), taken.end(), [&](const QRect& t) { return t.intersects(padded); });
  };
  // Bigger clusters choose first: their labels matter most when space is short.
  std::vector<std::size_t> order(placed_.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return clusters_[a].totalGpus() > clusters_[b].totalGpus(); });
  for (std::size_t i : order) {
    const Placed& p = placed_[i];
    const QRect dot = mapFromScene(p.dot->sceneBoundingRect()).boundingRect();
    const QSize size = p.label->boundingRect().size().toSize();
    const int w = size.width(), h = size.height();
    const QPoint c = dot.center();
    std::vector<std::pair<QPoint, bool>> candidates = {
        {{dot.right() + 4, c.y() - h / 2}, false},
        {{dot.left() - 4 - w, c.y() - h / 2}, false},
        {{c.x() - w / 2, dot.top() - 3 - h}, false},
        {{c.x() - w / 2, dot.bottom() + 3}, false},
    };
    for (int k = 1; k <= 4; ++k)
      for (int sign : {1, -1}) {
        candidates.push_back({{dot.right() + 4 + 6 * k, c.y() - h / 2 + sign * k * (h + 2)}, true});
        candidates.push_back({{dot.left() - 4 - 6 * k - w, c.y() - h / 2 + sign * k * (h + 2)}, true});
      }
    bool shown = false;
    for (const auto& [at, lead] : candidates) {
      const QRect r(at, size);
      if (!isFree(r)) continue;
      p.label->setPos(mapToScene(at));
      p.label->setVisible(true);
      taken.push_back(r);
      p.leader->setVisible(lead);
      if (lead) {
        const QPoint end(r.left() > c.x() ? r.left() : r.right(), r.center().y());
        p.leader->setLine(QLineF(mapToScene(c), mapToScene(end)));
      }
      shown = true;
      break;
    }
    if (!shown) {
      p.label->setVisible(false);
      p.leader->setVisible(false);
      ++hiddenLabels_;
    }
  }
}

void RegionMapView::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);
  fitInView(sceneRect(), Qt::KeepAspectRatio);
  layoutLabels();
}

void RegionMapView::wheelEvent(QWheelEvent* event) {
  const double factor = std::pow(1.2, event->angleDelta().y() / 120.0);
  scale(factor, factor);
  layoutLabels();
  event->accept();
}

void RegionMapView::scrollContentsBy(int dx, int dy) {
  QGraphicsView::scrollContentsBy(dx, dy);
  layoutLabels();  // labels that come into view get a place
}

void RegionMapView::changeEvent(QEvent* event) {
  QGraphicsView::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) setClusters(std::vector<Cluster>(clusters_));
}

}  // namespace tessera::planner
