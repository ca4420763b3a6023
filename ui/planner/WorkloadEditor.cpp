#include "ui/planner/WorkloadEditor.h"

#include "ui/planner/PlannerFormat.h"

#include "core/cost/AcceleratorSpecs.h"
#include "core/cost/WorkloadJson.h"

#include <nlohmann/json.hpp>

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSpinBox>
#include <QVBoxLayout>

namespace tessera::planner {

namespace {

constexpr Accelerator kAccelerators[] = {Accelerator::H100,  Accelerator::H200,   Accelerator::B200,
                                         Accelerator::GB200, Accelerator::MI300X, Accelerator::A100,
                                         Accelerator::L40S,  Accelerator::RTX4090};

QLineEdit* numberField(QWidget* parent, const char* objectName, const QString& placeholder) {
  auto* e = new QLineEdit(parent);
  e->setObjectName(objectName);
  e->setPlaceholderText(placeholder);
  return e;
}

// A number as typed: nullopt for an empty field, an error for anything that is not a number.
std::variant<std::optional<double>, QString> numberIn(const QLineEdit* e, const QString& field) {
  const QString text = e->text().trimmed();
  if (text.isEmpty()) return std::optional<double>{};
  bool ok = false;
  const double v = QLocale::c().toDouble(text, &ok);
  if (!ok) return QObject::tr("%1: '%2' is not a number").arg(field, text);
  return std::optional<double>{v};
}

QString plain(double v) { return QLocale::c().toString(v, 'g', 12); }

}  // namespace

WorkloadEditor::WorkloadEditor(QString folder, QWidget* parent)
    : QDialog(parent),
      folder_(std::move(folder)),
      name_(new QLineEdit(this)),
      kind_(new QComboBox(this)),
      reference_(new QComboBox(this)),
      params_(numberField(this, "workloadParams", tr("e.g. 70 (billions; optional)"))),
      data_(new QSpinBox(this)),
      tensor_(new QSpinBox(this)),
      pipeline_(new QSpinBox(this)),
      gpus_(new QLabel(this)),
      tokensPerStep_(numberField(this, "workloadTokensPerStep", tr("e.g. 4000000"))),
      steps_(numberField(this, "workloadSteps", tr("or total tokens below"))),
      totalTokens_(numberField(this, "workloadTotalTokens", tr("e.g. 1e12"))),
      flopsPerStep_(numberField(this, "workloadFlopsPerStep", tr("blank: 6 x parameters x tokens per step"))),
      kernelEfficiency_(numberField(this, "workloadKernelEfficiency", tr("0.55"))),
      commOverlap_(numberField(this, "workloadCommOverlap", tr("0 (none hidden) to 1"))),
      inferenceTokens_(numberField(this, "workloadInferenceTokens", tr("tokens to serve"))),
      tokensPerSecond_(numberField(this, "workloadTokensPerSecond", tr("per GPU, at the latency target"))),
      latencyMs_(numberField(this, "workloadLatencyMs", tr("optional"))),
      checkpointHours_(numberField(this, "workloadCheckpointHours", tr("1"))),
      checkpointGb_(numberField(this, "workloadCheckpointGb", tr("0"))),
      tolerance_(new QComboBox(this)),
      dataGb_(numberField(this, "workloadDataGb", tr("0"))),
      dataRegion_(new QLineEdit(this)),
      outputGb_(numberField(this, "workloadOutputGb", tr("0"))),
      derived_(new QLabel(this)),
      error_(new QLabel(this)),
      buttons_(new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this)),
      form_(new QFormLayout) {
  setWindowTitle(tr("Workload"));
  name_->setObjectName("workloadName");
  name_->setPlaceholderText(tr("becomes the file name, e.g. my-13b-run"));
  for (auto k : {cost::WorkloadKind::Training, cost::WorkloadKind::FineTune, cost::WorkloadKind::Inference,
                 cost::WorkloadKind::Batch})
    kind_->addItem(QString::fromUtf8(cost::toString(k).data()), static_cast<int>(k));
  kind_->setObjectName("workloadKind");
  for (Accelerator a : kAccelerators) reference_->addItem(QString::fromUtf8(toString(a).data()), static_cast<int>(a));
  reference_->setToolTip(tr("The accelerator the FLOPs and throughput figures refer to; others are scaled from it"));
  for (QSpinBox* box : {data_, tensor_, pipeline_}) box->setRange(1, 100000);
  data_->setObjectName("workloadData");
  tensor_->setObjectName("workloadTensor");
  pipeline_->setObjectName("workloadPipeline");
  tolerance_->addItem(tr("restart from checkpoint (synchronous)"),
                      static_cast<int>(cost::InterruptionTolerance::RestartFromCheckpoint));
  tolerance_->addItem(tr("elastic (only the failed node's work is redone)"),
                      static_cast<int>(cost::InterruptionTolerance::Elastic));
  dataRegion_->setObjectName("workloadDataRegion");
  dataRegion_->setPlaceholderText(tr("e.g. us-east; blank: next to the cluster"));

  auto* parallel = new QHBoxLayout;
  for (auto [label, box] :
       {std::pair{tr("data"), data_}, std::pair{tr("tensor"), tensor_}, std::pair{tr("pipeline"), pipeline_}}) {
    parallel->addWidget(new QLabel(label, this));
    parallel->addWidget(box);
  }
  parallel->addWidget(gpus_, 1);
  form_->addRow(tr("&Name"), name_);
  form_->addRow(tr("&Kind"), kind_);
  form_->addRow(tr("&Figures measured on"), reference_);
  form_->addRow(tr("Model size (B params)"), params_);
  form_->addRow(tr("Parallelism"), parallel);
  form_->addRow(tr("Tokens per step"), tokensPerStep_);
  form_->addRow(tr("&Steps"), steps_);
  form_->addRow(tr("Total tokens"), totalTokens_);
  form_->addRow(tr("FLOPs per step"), flopsPerStep_);
  form_->addRow(tr("Kernel efficiency"), kernelEfficiency_);
  form_->addRow(tr("Sync hidden by compute"), commOverlap_);
  form_->addRow(tr("Tokens to serve"), inferenceTokens_);
  form_->addRow(tr("Tokens/s per GPU"), tokensPerSecond_);
  form_->addRow(tr("Latency target (ms)"), latencyMs_);
  form_->addRow(tr("Checkpoint every (h)"), checkpointHours_);
  form_->addRow(tr("Checkpoint size (GB)"), checkpointGb_);
  form_->addRow(tr("Interruptions"), tolerance_);
  form_->addRow(tr("Dataset (GB)"), dataGb_);
  form_->addRow(tr("Dataset region"), dataRegion_);
  form_->addRow(tr("Results out (GB)"), outputGb_);
  derived_->setWordWrap(true);
  error_->setObjectName("workloadError");
  error_->setWordWrap(true);
  error_->setStyleSheet("color: #e57373;");
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form_);
  layout->addWidget(derived_);
  layout->addWidget(error_);
  layout->addWidget(buttons_);
  buttons_->button(QDialogButtonBox::Save)->setObjectName("workloadSave");
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(buttons_, &QDialogButtonBox::accepted, this, [this] {
    if (!save().isEmpty()) accept();
  });
  for (QLineEdit* e : findChildren<QLineEdit*>()) connect(e, &QLineEdit::textChanged, this, [this] { validate(); });
  for (QSpinBox* b : {data_, tensor_, pipeline_}) connect(b, &QSpinBox::valueChanged, this, [this] { validate(); });
  for (QComboBox* c : {kind_, reference_, tolerance_})
    connect(c, &QComboBox::currentIndexChanged, this, [this] {
      updateVisibility();
      validate();
    });
  updateVisibility();
  validate();
}

void WorkloadEditor::updateVisibility() {
  const bool inference = static_cast<cost::WorkloadKind>(kind_->currentData().toInt()) == cost::WorkloadKind::Inference;
  for (QWidget* w : std::initializer_list<QWidget*>{tokensPerStep_, steps_, totalTokens_, flopsPerStep_,
                                                    kernelEfficiency_, commOverlap_})
    form_->setRowVisible(w, !inference);
  for (QWidget* w : std::initializer_list<QWidget*>{inferenceTokens_, tokensPerSecond_, latencyMs_})
    form_->setRowVisible(w, inference);
}

void WorkloadEditor::load(const cost::WorkloadProfile& w) {
  name_->setText(QString::fromStdString(w.name));
  kind_->setCurrentIndex(kind_->findData(static_cast<int>(w.kind)));
  reference_->setCurrentIndex(reference_->findData(static_cast<int>(w.referenceAccelerator)));
  params_->setText(w.modelParamsBillions > 0 ? plain(w.modelParamsBillions) : QString());
  data_->setValue(w.parallelism.data);
  tensor_->setValue(w.parallelism.tensor);
  pipeline_->setValue(w.parallelism.pipeline);
  tokensPerStep_->setText(w.tokensPerStep > 0 ? plain(w.tokensPerStep) : QString());
  steps_->setText(w.steps > 0 ? plain(w.steps) : QString());
  totalTokens_->clear();
  const double flops =
      w.peakComputeSecondsPerStep * w.gpus() * cost::specOf(w.referenceAccelerator).denseBf16Tflops * 1e12;
  flopsPerStep_->setText(flops > 0 ? plain(flops) : QString());
  kernelEfficiency_->setText(plain(w.kernelEfficiency));
  commOverlap_->setText(plain(w.commOverlap));
  inferenceTokens_->setText(w.inferenceTokens > 0 ? plain(w.inferenceTokens) : QString());
  tokensPerSecond_->setText(w.tokensPerSecondPerGpu > 0 ? plain(w.tokensPerSecondPerGpu) : QString());
  latencyMs_->setText(w.latencyTargetMs > 0 ? plain(w.latencyTargetMs) : QString());
  checkpointHours_->setText(plain(w.checkpointIntervalHours));
  checkpointGb_->setText(plain(w.checkpointSizeGb));
  tolerance_->setCurrentIndex(tolerance_->findData(static_cast<int>(w.tolerance)));
  dataGb_->setText(plain(w.dataSizeGb));
  dataRegion_->setText(QString::fromStdString(w.dataRegion));
  outputGb_->setText(plain(w.outputSizeGb));
  validate();
}

std::variant<cost::WorkloadProfile, QString> WorkloadEditor::workload() const {
  const QString name = name_->text().trimmed();
  if (name.isEmpty()) return tr("Name: give the workload a name (it becomes the file name).");
  if (!QRegularExpression("^[A-Za-z0-9][A-Za-z0-9._-]*$").match(name).hasMatch())
    return tr("Name: letters, digits, '.', '_' and '-' only (it becomes the file name).");
  const auto kind = static_cast<cost::WorkloadKind>(kind_->currentData().toInt());
  const auto reference = static_cast<Accelerator>(reference_->currentData().toInt());
  nlohmann::json j;
  j["name"] = name.toStdString();
  j["kind"] = std::string(cost::toString(kind));
  j["reference_accelerator"] = std::string(toString(reference));
  j["parallelism"] = {{"data", data_->value()}, {"tensor", tensor_->value()}, {"pipeline", pipeline_->value()}};
  // Every typed number, or the first one that is not a number.
  std::map<const QLineEdit*, std::optional<double>> n;
  const std::pair<const QLineEdit*, QString> fields[] = {{params_, tr("Model size")},
                                                         {tokensPerStep_, tr("Tokens per step")},
                                                         {steps_, tr("Steps")},
                                                         {totalTokens_, tr("Total tokens")},
                                                         {flopsPerStep_, tr("FLOPs per step")},
                                                         {kernelEfficiency_, tr("Kernel efficiency")},
                                                         {commOverlap_, tr("Sync hidden by compute")},
                                                         {inferenceTokens_, tr("Tokens to serve")},
                                                         {tokensPerSecond_, tr("Tokens/s per GPU")},
                                                         {latencyMs_, tr("Latency target")},
                                                         {checkpointHours_, tr("Checkpoint every")},
                                                         {checkpointGb_, tr("Checkpoint size")},
                                                         {dataGb_, tr("Dataset")},
                                                         {outputGb_, tr("Results out")}};
  for (const auto& [field, label] : fields) {
    auto v = numberIn(field, label);
    if (const QString* why = std::get_if<QString>(&v)) return *why;
    n[field] = std::get<std::optional<double>>(v);
  }
  if (n[params_]) j["model_params_billions"] = *n[params_];
  const double gpus = static_cast<double>(data_->value()) * tensor_->value() * pipeline_->value();
  if (kind == cost::WorkloadKind::Inference) {
    if (!n[inferenceTokens_]) return tr("Tokens to serve: required for inference.");
    if (!n[tokensPerSecond_]) return tr("Tokens/s per GPU: required for inference (measured at the latency target).");
    j["inference"] = {{"tokens", *n[inferenceTokens_]}, {"tokens_per_second_per_gpu", *n[tokensPerSecond_]}};
    if (n[latencyMs_]) j["inference"]["latency_target_ms"] = *n[latencyMs_];
  } else {
    if (n[tokensPerStep_]) j["tokens_per_step"] = *n[tokensPerStep_];
    if (n[steps_])
      j["steps"] = *n[steps_];
    else if (n[totalTokens_])
      j["total_tokens"] = *n[totalTokens_];
    else
      return tr("Steps: give the number of steps, or total tokens with tokens per step.");
    double flops = 0;
    if (n[flopsPerStep_])
      flops = *n[flopsPerStep_];
    else if (n[params_] && n[tokensPerStep_])
      flops = 6.0 * *n[params_] * 1e9 * *n[tokensPerStep_];
    else
      return tr("FLOPs per step: give it, or the model size and tokens per step (6 x parameters x tokens).");
    if (!(flops > 0)) return tr("FLOPs per step: must be positive.");
    j["peak_compute_seconds_per_step"] = flops / (gpus * cost::specOf(reference).denseBf16Tflops * 1e12);
    if (n[kernelEfficiency_]) j["kernel_efficiency"] = *n[kernelEfficiency_];
    if (n[commOverlap_]) j["comm_overlap"] = *n[commOverlap_];
  }
  j["checkpoint"] = nlohmann::json::object();
  if (n[checkpointHours_]) j["checkpoint"]["interval_hours"] = *n[checkpointHours_];
  if (n[checkpointGb_]) j["checkpoint"]["size_gb"] = *n[checkpointGb_];
  j["interruption_tolerance"] =
      std::string(cost::toString(static_cast<cost::InterruptionTolerance>(tolerance_->currentData().toInt())));
  j["data"] = {{"region", dataRegion_->text().trimmed().toStdString()}};
  if (n[dataGb_]) j["data"]["size_gb"] = *n[dataGb_];
  if (n[outputGb_]) j["data"]["output_gb"] = *n[outputGb_];
  // The reader the planner and tessera-cli use decides what is valid.
  auto w = cost::workloadFromJson(j);
  if (auto* e = std::get_if<cost::LoadError>(&w)) return QString::fromStdString(e->message);
  return std::get<cost::WorkloadProfile>(w);
}

QString WorkloadEditor::problem() const {
  const auto w = workload();
  return std::holds_alternative<QString>(w) ? std::get<QString>(w) : QString();
}

void WorkloadEditor::validate() {
  gpus_->setText(tr("= %1 GPUs").arg(static_cast<long long>(data_->value()) * tensor_->value() * pipeline_->value()));
  const auto w = workload();
  const QString* why = std::get_if<QString>(&w);
  error_->setText(why ? *why : QString());
  buttons_->button(QDialogButtonBox::Save)->setEnabled(!why);
  if (const auto* p = std::get_if<cost::WorkloadProfile>(&w)) {
    derived_->setText(p->kind == cost::WorkloadKind::Inference
                          ? tr("%1 GPUs serving %2M tokens").arg(p->gpus()).arg(p->inferenceTokens / 1e6, 0, 'f', 0)
                          : tr("%1 GPUs, %2 steps of %3, %4 s per step at %5 peak (before kernel efficiency)")
                                .arg(p->gpus())
                                .arg(QLocale(QLocale::English).toString(p->steps, 'f', 0))
                                .arg(flopsText(p->peakComputeSecondsPerStep * p->gpus() *
                                               cost::specOf(p->referenceAccelerator).denseBf16Tflops * 1e12))
                                .arg(p->peakComputeSecondsPerStep, 0, 'g', 4)
                                .arg(QString::fromUtf8(toString(p->referenceAccelerator).data())));
  } else {
    derived_->clear();
  }
}

QString WorkloadEditor::save() {
  const auto w = workload();
  if (const QString* why = std::get_if<QString>(&w)) {
    error_->setText(*why);
    return {};
  }
  const auto& profile = std::get<cost::WorkloadProfile>(w);
  if (!QDir().mkpath(folder_)) {
    error_->setText(tr("Cannot create the folder %1.").arg(folder_));
    return {};
  }
  const QString path = QDir(folder_).filePath(QString::fromStdString(profile.name) + ".json");
  if (QFile::exists(path) &&
      QMessageBox::question(this, tr("Replace workload"), tr("%1 exists. Replace it?").arg(path)) != QMessageBox::Yes)
    return {};
  QSaveFile file(path);
  const QByteArray text = QByteArray::fromStdString(cost::toJson(profile).dump(2) + "\n");
  if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size() || !file.commit()) {
    error_->setText(tr("Cannot write %1: %2").arg(path, file.errorString()));
    return {};
  }
  emit saved(path, profile);
  return path;
}

}  // namespace tessera::planner
