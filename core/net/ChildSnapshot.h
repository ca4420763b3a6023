#pragma once
// A snapshot serialized by a forked child process, the way Redis writes its RDB file: after
// fork() the child sees the parent's memory as it was at that instant (copy-on-write), so the
// matching thread pauses only for the fork, and trading goes on while the child serializes the
// state and sends the bytes back through a pipe. Linux only; no Qt.
//
// The child runs nothing but the given function (which must only read memory: no file, lock,
// log or allocator-unsafe call; ExchangeCore::snapshot(header, n) is written to be one), writes
// the length and the bytes, and leaves with _exit. It holds none of the parent's descriptors
// but the pipe, and takes the default action for SIGINT, SIGTERM and SIGPIPE: a child whose
// parent died (or dropped it) dies at its first write. (PR_SET_PDEATHSIG would tie it to the
// forking thread, which may end first at a clean stop.)
#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>

namespace tessera::net {

class ChildSnapshot {
 public:
  // What collect() gives: the bytes, or why there are none (the child failed, was killed, or
  // sent fewer bytes than it announced).
  struct Result {
    std::string bytes;
    std::string error;
    [[nodiscard]] bool ok() const { return error.empty(); }
  };

  // Forks a child that runs `serialize`. Empty when the pipe or the fork cannot be made (no
  // memory, process limit): the caller serializes in its own thread instead.
  [[nodiscard]] static std::optional<ChildSnapshot> start(const std::function<std::string()>& serialize);

  // Reads the child's bytes to the end (blocking) and reaps it. Call once, from any thread.
  [[nodiscard]] Result collect();

  ChildSnapshot(ChildSnapshot&& other) noexcept;
  ChildSnapshot& operator=(ChildSnapshot&& other) noexcept;
  ChildSnapshot(const ChildSnapshot&) = delete;
  ChildSnapshot& operator=(const ChildSnapshot&) = delete;
  // A child not collected is killed and reaped.
  ~ChildSnapshot();

  pid_t pid() const { return pid_; }

 private:
  ChildSnapshot(pid_t pid, int fd) : pid_(pid), fd_(fd) {}
  void release();
  pid_t pid_ = -1;
  int fd_ = -1;
};

}  // namespace tessera::net
