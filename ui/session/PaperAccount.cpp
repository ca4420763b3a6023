#include "ui/session/PaperAccount.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

namespace tessera::ui {

QString PaperAccount::defaultJournalPath() {
  return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation))
      .filePath(QStringLiteral("paper/exchange.db"));
}

QStringList PaperAccount::journalFiles(const QString& journalPath) {
  const QString snapshots = journalPath + QStringLiteral(".snapshots");  // core/net/SnapshotStore, SQLite in WAL mode
  return {journalPath,
          journalPath + QStringLiteral("-wal"),
          journalPath + QStringLiteral("-shm"),
          onFillStatePath(journalPath),
          snapshots,
          snapshots + QStringLiteral("-wal"),
          snapshots + QStringLiteral("-shm")};
}

QString PaperAccount::onFillStatePath(const QString& journalPath) {
  return journalPath + QStringLiteral("-on-fill.log");
}

PaperAccount::PaperAccount(QString journalPath) : journalPath_(std::move(journalPath)) {}

PaperAccount::~PaperAccount() {
  if (lock_ && owned_) lock_->unlock();
}

PaperAccount::Claim PaperAccount::claim() {
  if (owned_) return Claim::Owned;
  const QFileInfo info(journalPath_);
  if (!QDir().mkpath(info.absolutePath())) {
    problem_ = QStringLiteral("cannot create the folder %1").arg(info.absolutePath());
    return Claim::Failed;
  }
  lock_ = std::make_unique<QLockFile>(journalPath_ + QStringLiteral(".lock"));
  // Only a dead holder makes a lock stale: a terminal may run for weeks.
  lock_->setStaleLockTime(0);
  if (lock_->tryLock(0)) {
    owned_ = true;
    return Claim::Owned;
  }
  if (lock_->error() == QLockFile::LockFailedError) {
    qint64 pid = 0;
    QString host;
    QString app;
    if (lock_->getLockInfo(&pid, &host, &app))
      problem_ = QStringLiteral("another Tessera (process %1 on %2) is using the paper account %3")
                     .arg(pid)
                     .arg(host, journalPath_);
    else
      problem_ = QStringLiteral("another Tessera is using the paper account %1").arg(journalPath_);
    return Claim::HeldByAnother;
  }
  problem_ =
      QStringLiteral("cannot lock the paper account %1 (%2.lock is not writable)").arg(journalPath_, journalPath_);
  return Claim::Failed;
}

std::optional<QString> PaperAccount::erase() {
  if (!owned_) return QStringLiteral("the paper account %1 is not this terminal's to delete").arg(journalPath_);
  for (const QString& f : journalFiles(journalPath_)) {
    if (QFile::exists(f) && !QFile::remove(f)) return QStringLiteral("cannot delete %1").arg(f);
  }
  return std::nullopt;
}

SetAside setJournalAside(const QString& journalPath) {
  const QString stamp = QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss"));
  QString target = journalPath + QStringLiteral(".unreadable-") + stamp;
  for (int i = 2; QFile::exists(target) && i < 100; ++i)
    target = journalPath + QStringLiteral(".unreadable-") + stamp + QStringLiteral("-") + QString::number(i);
  const QStringList from = PaperAccount::journalFiles(journalPath);
  const QStringList to = PaperAccount::journalFiles(target);
  if (!QFile::rename(from[0], to[0])) return {QString(), QStringLiteral("cannot rename %1 to %2").arg(from[0], to[0])};
  // The -wal holds committed entries not yet copied into the db: it goes with it.
  for (int i = 1; i < from.size(); ++i) {
    if (QFile::exists(from[i]) && !QFile::rename(from[i], to[i]))
      return {to[0], QStringLiteral("cannot rename %1 to %2").arg(from[i], to[i])};
  }
  return {to[0], QString()};
}

std::optional<QString> chooseJournal(PaperAccount& account, bool fresh,
                                     const std::function<bool(const QString&)>& useMemoryInstead) {
  switch (account.claim()) {
    case PaperAccount::Claim::Owned:
      if (fresh) {
        if (auto err = account.erase()) {
          if (!useMemoryInstead(QStringLiteral("A new paper account cannot start: %1.").arg(*err))) return std::nullopt;
          return QString::fromLatin1(kMemoryJournal);
        }
      }
      return account.journalPath();
    case PaperAccount::Claim::HeldByAnother:
      if (!useMemoryInstead(
              QStringLiteral("Two terminals cannot share one paper account: %1.\n\nIts orders, contracts and cash are "
                             "safe with that terminal.")
                  .arg(account.problem())))
        return std::nullopt;
      return QString::fromLatin1(kMemoryJournal);
    case PaperAccount::Claim::Failed:
      if (!useMemoryInstead(QStringLiteral("The paper account cannot be used: %1.").arg(account.problem())))
        return std::nullopt;
      return QString::fromLatin1(kMemoryJournal);
  }
  return std::nullopt;
}

}  // namespace tessera::ui
