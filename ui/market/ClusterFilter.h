#pragma once
// The cluster list's filters: accelerator, region, minimum fabric, and a ceiling on the best ask.
#include "ui/market/ClusterListModel.h"

#include <QSortFilterProxyModel>

#include <optional>

namespace tessera::ui {

class ClusterFilter : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  explicit ClusterFilter(QObject* parent = nullptr);
  void setAccelerator(std::optional<Accelerator> a);
  void setRegion(QString region);  // empty: any
  void setMinFabric(std::optional<FabricClass> f);
  void setMaxAsk(std::optional<Price> p);  // clusters with no ask in the next day are hidden by a ceiling
  void setText(QString text);

 protected:
  bool filterAcceptsRow(int row, const QModelIndex& parent) const override;

 private:
  std::optional<Accelerator> accelerator_;
  QString region_;
  std::optional<FabricClass> minFabric_;
  std::optional<Price> maxAsk_;
  QString text_;
};

}  // namespace tessera::ui
