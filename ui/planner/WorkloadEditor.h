#pragma once
// Describe one's own workload: kind, model size, FLOPs per step (or 6 x parameters x tokens),
// steps or tokens, parallelism (so the GPU count), checkpoints, data and egress, interruption
// tolerance. Saved as the workload JSON that tessera-cli and the planner read
// (core/cost/WorkloadJson), and checked by that same reader while typing: a value it would
// refuse shows its reason and disables Save, and an existing file is only replaced after asking.
#include "core/cost/WorkloadProfile.h"

#include <QDialog>

#include <optional>
#include <variant>

class QComboBox;
class QDialogButtonBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace tessera::planner {

class WorkloadEditor : public QDialog {
  Q_OBJECT

 public:
  // Files are saved into `folder` (created if missing) as <name>.json.
  WorkloadEditor(QString folder, QWidget* parent = nullptr);

  // Starts from an existing profile (e.g. a shipped one to adapt).
  void load(const cost::WorkloadProfile& w);
  // The workload the form describes, or what is wrong with it.
  std::variant<cost::WorkloadProfile, QString> workload() const;
  QString problem() const;
  // Writes the file; returns its path, or an empty string (and says why on the form).
  QString save();

 signals:
  void saved(const QString& path, const tessera::cost::WorkloadProfile& workload);

 private:
  void validate();
  void updateVisibility();

  QString folder_;
  QLineEdit* name_;
  QComboBox* kind_;
  QComboBox* reference_;
  QLineEdit* params_;
  QSpinBox* data_;
  QSpinBox* tensor_;
  QSpinBox* pipeline_;
  QLabel* gpus_;
  QLineEdit* tokensPerStep_;
  QLineEdit* steps_;
  QLineEdit* totalTokens_;
  QLineEdit* flopsPerStep_;
  QLineEdit* kernelEfficiency_;
  QLineEdit* commOverlap_;
  QLineEdit* inferenceTokens_;
  QLineEdit* tokensPerSecond_;
  QLineEdit* latencyMs_;
  QLineEdit* checkpointHours_;
  QLineEdit* checkpointGb_;
  QComboBox* tolerance_;
  QLineEdit* dataGb_;
  QLineEdit* dataRegion_;
  QLineEdit* outputGb_;
  QLabel* derived_;
  QLabel* error_;
  QDialogButtonBox* buttons_;
  QFormLayout* form_;
};

}  // namespace tessera::planner
