#include "ui/planner/RegionMapView.h"

#include "ui/planner/PlannerColors.h"

#include <QGraphicsEllipseItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QWheelEvent>

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
    {"us-west", {60, 110}},      {"us-central", {150, 195}}, {"us-east", {250, 135}},
    {"us-south", {190, 250}},    {"us", {160, 160}},         {"ca", {170, 70}},
    {"sa", {290, 380}},          {"br", {310, 370}},         {"eu-west", {470, 120}},
    {"eu-north", {530, 60}},     {"eu-central", {545, 125}}, {"eu-south", {535, 175}},
    {"eu", {520, 120}},          {"uk", {470, 95}},          {"me", {640, 215}},
    {"af", {540, 320}},          {"in", {720, 240}},         {"ap-south", {720, 240}},
    {"ap-southeast", {800, 300}}, {"sg", {800, 300}},        {"ap-east", {810, 200}},
    {"cn", {790, 170}},          {"ap-northeast", {880, 150}}, {"jp", {890, 150}},
    {"kr", {860, 150}},          {"au", {880, 420}},         {"ap", {820, 230}},
};

struct Landmass {
  QRectF rect;
  const char* name;
};

const Landmass kLand[] = {
    {{30, 40, 290, 230}, "North America"}, {{230, 290, 130, 170}, "South America"},
    {{430, 30, 170, 170}, "Europe"},       {{460, 220, 150, 190}, "Africa"},
    {{610, 30, 320, 310}, "Asia"},         {{820, 370, 130, 90}, "Oceania"},
};

const QPointF kElsewhere(60, 500);

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
  setBackgroundBrush(QColor(0xe3, 0xf2, 0xfd));
  setDragMode(QGraphicsView::ScrollHandDrag);
  drawBackground();
}

void RegionMapView::drawBackground() {
  QGraphicsScene* s = scene();
  for (const Landmass& l : kLand) {
    auto* r = s->addRect(l.rect, QPen(QColor(0xb0, 0xbe, 0xc5)), QColor(0xf5, 0xf5, 0xf0));
    r->setZValue(-10);
    auto* t = s->addSimpleText(l.name);
    t->setBrush(QColor(0x90, 0xa4, 0xae));
    t->setPos(l.rect.topLeft() + QPointF(6, 4));
    t->setZValue(-9);
  }
  auto* e = s->addSimpleText("elsewhere / unknown region");
  e->setBrush(QColor(0x90, 0xa4, 0xae));
  e->setPos(kElsewhere + QPointF(-30, -35));
  s->setSceneRect(0, -10, 980, 560);
}

void RegionMapView::setClusters(const std::vector<Cluster>& clusters) {
  QGraphicsScene* s = scene();
  s->clear();
  drawBackground();
  clusterItems_ = unplaced_ = 0;
  std::map<std::pair<int, int>, double> stacked;  // how far down (or across) an anchor is taken
  std::set<Accelerator> seen;
  for (const Cluster& c : clusters) {
    bool known = false;
    QPointF at = regionAnchor(c.region, &known);
    if (!known) ++unplaced_;
    const auto key = std::make_pair(static_cast<int>(at.x()), static_cast<int>(at.y()));
    const double radius = 5 + 2.0 * std::sqrt(static_cast<double>(c.totalGpus()) / 64.0);
    // Clusters in one region fan out in a column, each dot below the last one's, so neither
    // dots nor labels overlap.
    double& taken = stacked[key];
    const double step = std::max(2 * radius + 4, 18.0);
    at += QPointF(known ? 0 : taken, known ? taken + radius : 0);
    taken += known ? step : 150;
    const QColor colour = acceleratorColor(c.accelerator);
    auto* dot = s->addEllipse(at.x() - radius, at.y() - radius, 2 * radius, 2 * radius,
                              QPen(colour.darker(140), 1.2), colour);
    dot->setToolTip(QString("%1 (%2): %3 x %4, %5")
                        .arg(QString::fromStdString(c.name), QString::fromStdString(c.region))
                        .arg(c.totalGpus())
                        .arg(QString::fromUtf8(toString(c.accelerator).data()))
                        .arg(QString::fromUtf8(toString(c.fabric).data())));
    auto* label = s->addSimpleText(QString("%1  %2 GPUs").arg(QString::fromStdString(c.name)).arg(c.totalGpus()));
    QFont f = label->font();
    f.setPointSize(7);
    label->setFont(f);
    label->setPos(at + QPointF(radius + 3, -label->boundingRect().height() / 2));
    seen.insert(c.accelerator);
    ++clusterItems_;
  }
  // Legend: accelerators present.
  double y = 470;
  auto* title = s->addSimpleText("accelerator (size: GPUs)");
  title->setPos(700, y - 22);
  for (Accelerator a : seen) {
    const QColor colour = acceleratorColor(a);
    s->addEllipse(700, y, 12, 12, QPen(colour.darker(140)), colour);
    s->addSimpleText(QString::fromUtf8(toString(a).data()))->setPos(718, y - 2);
    y += 18;
  }
  s->setSceneRect(s->itemsBoundingRect().united(QRectF(0, -10, 980, 560)));
  fitInView(sceneRect(), Qt::KeepAspectRatio);
}

void RegionMapView::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);
  fitInView(sceneRect(), Qt::KeepAspectRatio);
}

void RegionMapView::wheelEvent(QWheelEvent* event) {
  const double factor = std::pow(1.2, event->angleDelta().y() / 120.0);
  scale(factor, factor);
  event->accept();
}

}  // namespace tessera::planner
