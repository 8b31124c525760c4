// The co-located child server (LocalServer) against the real `wirebench`
// binary: it serves, stops on request, and never outlives a client that is
// killed.
#include "bench/loadgen/local_server.h"
#include "tests/wirebench_paths.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <string>

namespace wirebench {
namespace {

// Waits up to timeout_ms for process `pid` (not necessarily our child) to
// exit, on a pidfd: true once it has.
bool WaitForExit(pid_t pid, int timeout_ms) {
  const int fd = int(syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0) return errno == ESRCH;  // Already gone (and reaped).
  pollfd p{fd, POLLIN, 0};
  int r;
  do {
    r = poll(&p, 1, timeout_ms);
  } while (r < 0 && errno == EINTR);
  close(fd);
  return r == 1;
}

// The client process (the test's child) spawns the server, reports its pid
// on a pipe and waits to be killed; the test kill -9s the client, as the OOM
// killer would, and the server must exit by itself.
TEST(LocalServer, ExitsWhenItsClientIsKilled) {
  ASSERT_TRUE(std::filesystem::exists(kBinary)) << kBinary;
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t client = fork();
  ASSERT_GE(client, 0);
  if (client == 0) {
    close(fds[0]);
    auto server = LocalServer::Spawn({"--region", "null", "--quiet"}, "", kBinary);
    const pid_t pid = server.ok() ? (*server)->pid() : -1;
    if (write(fds[1], &pid, sizeof(pid)) != ssize_t(sizeof(pid))) _exit(1);
    for (;;) pause();  // Until killed.
  }
  close(fds[1]);
  pid_t server = -1;
  ASSERT_EQ(read(fds[0], &server, sizeof(server)), ssize_t(sizeof(server)));
  close(fds[0]);
  ASSERT_GT(server, 0) << "the client could not start the server";
  ASSERT_EQ(kill(server, 0), 0) << "the server is not running";

  ASSERT_EQ(kill(client, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(client, &status, 0), client);
  ASSERT_TRUE(WIFSIGNALED(status));

  const bool exited = WaitForExit(server, 30000);
  if (!exited) kill(server, SIGKILL);  // Do not leave it behind.
  EXPECT_TRUE(exited) << "the server (pid " << server << ") outlived its killed client";
}

TEST(LocalServer, StopEndsTheServer) {
  ASSERT_TRUE(std::filesystem::exists(kBinary)) << kBinary;
  auto server = LocalServer::Spawn({"--region", "null", "--quiet"}, "", kBinary);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  EXPECT_GT((*server)->port(), 0);
  EXPECT_TRUE((*server)->Alive());
  const pid_t pid = (*server)->pid();
  EXPECT_EQ((*server)->Stop(), "exited with status 0");
  EXPECT_FALSE((*server)->Alive());
  EXPECT_EQ(kill(pid, 0), -1);  // Reaped: the pid is gone.
}

}  // namespace
}  // namespace wirebench
