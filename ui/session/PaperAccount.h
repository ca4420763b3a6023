#pragma once
// The paper account: the embedded exchange's journal file (by default in the user's data
// folder), the lock that keeps a second terminal off it, and the file operations on it (start
// over, keep an unreadable journal aside). Everything the account holds lives in the journal;
// the exchange replays it on start.
#include <QLockFile>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <optional>

namespace tessera::ui {

class PaperAccount {
 public:
  // AppDataLocation/paper/exchange.db, e.g. ~/.local/share/Tessera/tessera/paper/exchange.db.
  static QString defaultJournalPath();
  // The journal and the files kept beside it: db, -wal, -shm (SQLite's), the on-fill state and
  // the exchange's snapshots (db.snapshots and its -wal, -shm): what is deleted with the account
  // or set aside with an unreadable journal.
  static QStringList journalFiles(const QString& journalPath);
  // The ticket's on-fill commands of this account (ui/session OnFillWatcher): JOURNAL-on-fill.log.
  static QString onFillStatePath(const QString& journalPath);

  explicit PaperAccount(QString journalPath);
  ~PaperAccount();  // releases the lock
  PaperAccount(const PaperAccount&) = delete;
  PaperAccount& operator=(const PaperAccount&) = delete;

  enum class Claim { Owned, HeldByAnother, Failed };
  // Creates the journal's folder and takes "<journal>.lock" for this process. HeldByAnother:
  // a running terminal (this one's or another's process) holds it; a lock left by a process
  // that is gone is taken over. Failed: the folder or lock cannot be written (see problem()).
  [[nodiscard]] Claim claim();
  bool owned() const { return owned_; }
  const QString& journalPath() const { return journalPath_; }
  // Why claim() did not give Owned, for a person.
  const QString& problem() const { return problem_; }

  // Deletes the journal files; only while owned and while no exchange has the journal open.
  // Returns why not, if a file could not be deleted.
  [[nodiscard]] std::optional<QString> erase();

 private:
  QString journalPath_;
  std::unique_ptr<QLockFile> lock_;
  bool owned_ = false;
  QString problem_;
};

// Moves an unreadable journal and its -wal/-shm aside, to "<journal>.unreadable-<UTC time>",
// so nothing of it is lost and a fresh journal can start at the path. Returns the new path of
// the journal, or why it could not be moved (as the error).
struct SetAside {
  QString path;
  QString error;
};
[[nodiscard]] SetAside setJournalAside(const QString& journalPath);

// The journal a terminal runs on when it wants `account`: its file once it holds the lock;
// otherwise, if `useMemoryInstead(message)` agrees, a temporary journal in memory
// (":memory:"); std::nullopt: do not run. `fresh` deletes the account's journal first.
[[nodiscard]] std::optional<QString> chooseJournal(PaperAccount& account, bool fresh,
                                                   const std::function<bool(const QString&)>& useMemoryInstead);

inline constexpr char kMemoryJournal[] = ":memory:";

}  // namespace tessera::ui
