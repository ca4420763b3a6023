#include "core/net/ChildSnapshot.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace tessera::net {
namespace {

// The child's exit codes (0: the bytes were sent).
constexpr int kSerializeFailed = 4;
constexpr int kWriteFailed = 5;

// Far more than any state this exchange holds: a larger announced length is a damaged pipe.
constexpr std::uint64_t kMaxSnapshotBytes = std::uint64_t{1} << 40;

bool writeAll(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t k = ::write(fd, p, n);
    if (k < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}

// Bytes read before the end of the pipe (fewer than `n` when the child stopped early).
std::size_t readAll(int fd, char* p, std::size_t n) {
  std::size_t got = 0;
  while (got < n) {
    const ssize_t k = ::read(fd, p + got, n - got);
    if (k < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (k == 0) break;
    got += static_cast<std::size_t>(k);
  }
  return got;
}

// Closes every descriptor from 3 up except `keep`: the child must not hold the parent's
// sockets or database files open (a client the parent closes would stay connected).
void closeAllBut(int keep) {
  const bool below = keep <= 3 || ::close_range(3, static_cast<unsigned>(keep - 1), 0) == 0;
  if (below && ::close_range(static_cast<unsigned>(keep + 1), ~0U, 0) == 0) return;
  // Kernels without close_range: the descriptors that are open, one by one.
  DIR* d = ::opendir("/proc/self/fd");
  if (!d) return;
  const int own = ::dirfd(d);
  while (const dirent* e = ::readdir(d)) {
    const int fd = std::atoi(e->d_name);
    if (fd >= 3 && fd != own && fd != keep) ::close(fd);
  }
  ::closedir(d);
}

[[noreturn]] void runChild(int out, const std::function<std::string()>& serialize) {
  // The parent's handlers (the server's stop signals) are not the child's business.
  ::signal(SIGINT, SIG_DFL);
  ::signal(SIGTERM, SIG_DFL);
  ::signal(SIGPIPE, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  closeAllBut(out);
  std::string bytes;
  try {
    bytes = serialize();
  } catch (...) {
    ::_exit(kSerializeFailed);
  }
  const std::uint64_t n = bytes.size();
  if (!writeAll(out, reinterpret_cast<const char*>(&n), sizeof n) || !writeAll(out, bytes.data(), bytes.size()))
    ::_exit(kWriteFailed);
  ::_exit(0);
}

}  // namespace

std::optional<ChildSnapshot> ChildSnapshot::start(const std::function<std::string()>& serialize) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return std::nullopt;
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return std::nullopt;
  }
  if (pid == 0) runChild(fds[1], serialize);
  ::close(fds[1]);
  return ChildSnapshot(pid, fds[0]);
}

ChildSnapshot::Result ChildSnapshot::collect() {
  Result r;
  if (pid_ <= 0) {
    r.error = "no snapshot process";
    return r;
  }
  std::uint64_t n = 0;
  const std::size_t head = readAll(fd_, reinterpret_cast<char*>(&n), sizeof n);
  if (head == sizeof n && n <= kMaxSnapshotBytes) {
    r.bytes.resize(n);
    if (readAll(fd_, r.bytes.data(), n) != n)
      r.error = "the snapshot process sent " + std::to_string(n) + " bytes' length and fewer bytes";
  } else if (head == sizeof n) {
    r.error = "the snapshot process announced an impossible length";
  } else {
    r.error = "the snapshot process sent nothing";
  }
  ::close(fd_);
  fd_ = -1;
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  if (WIFSIGNALED(status)) {
    r.error = std::string("the snapshot process was killed by signal ") + ::strsignal(WTERMSIG(status));
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.error = code == kSerializeFailed ? "the snapshot process could not serialize the state"
              : code == kWriteFailed   ? "the snapshot process could not write to its pipe"
                                       : "the snapshot process exited with status " + std::to_string(code);
  }
  if (!r.ok()) r.bytes.clear();
  return r;
}

void ChildSnapshot::release() {
  if (fd_ >= 0) ::close(fd_);
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  fd_ = -1;
  pid_ = -1;
}

ChildSnapshot::ChildSnapshot(ChildSnapshot&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)), fd_(std::exchange(other.fd_, -1)) {}

ChildSnapshot& ChildSnapshot::operator=(ChildSnapshot&& other) noexcept {
  if (this != &other) {
    release();
    pid_ = std::exchange(other.pid_, -1);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

ChildSnapshot::~ChildSnapshot() { release(); }

}  // namespace tessera::net
