#pragma once
// One run of a program (tessera-cli, tessera-backtest, ...) as a user runs it: its exit code and
// what it wrote.
#include <QProcess>
#include <QProcessEnvironment>
#include <QStringList>

#include <string>
#include <vector>

namespace tessera::testing {

struct ProgramResult {
  int code = -1;  // -1: did not exit normally (crashed, or still running after the timeout)
  std::string out, err;
};

// Runs `program` with `args` to its end (at most `timeoutMs`), `input` on its standard input
// (then closed); `env` entries are "NAME=value" added to the test's environment.
inline ProgramResult runProgram(const QString& program, const std::vector<std::string>& args,
                                const std::string& input = {}, const QStringList& env = {}, int timeoutMs = 30'000) {
  QProcess p;
  QStringList list;
  for (const std::string& a : args) list << QString::fromStdString(a);
  QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
  for (const QString& kv : env) e.insert(kv.section('=', 0, 0), kv.section('=', 1));
  p.setProcessEnvironment(e);
  p.start(program, list);
  ProgramResult r;
  if (!p.waitForStarted(5000)) return r;
  p.write(input.data(), static_cast<qint64>(input.size()));
  p.closeWriteChannel();
  if (!p.waitForFinished(timeoutMs)) {
    p.kill();
    p.waitForFinished(2000);
    r.err = "still running after " + std::to_string(timeoutMs) + " ms";
    return r;
  }
  r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  r.out = p.readAllStandardOutput().toStdString();
  r.err = p.readAllStandardError().toStdString();
  return r;
}

}  // namespace tessera::testing
