// What happens when kernbench is stopped by SIGINT, SIGTERM or SIGHUP (Ctrl-C,
// kill, a batch system): every registered temporary file is removed, every
// registered child process (a sweep's points) gets the same signal, one line
// names the signal, what had finished (the stop status) and what became of
// the outputs (all in place, or none written) on stderr, and the
// process ends by that signal (exit status 128 + N in a shell). The registries are fixed arrays a
// signal handler can read; they hold what is in flight at once, not everything ever made.
#pragma once

#include <sys/types.h>

#include <csignal>

#include <string>

namespace kb {

// Installs the handlers (once; later calls do nothing).
void install_stop_signal_cleanup();

// A temporary file to remove on a stop signal; -1 when the registry is full
// (the file is still removed by its owner on every normal path).
int register_temp_file(const std::string& path);
void release_temp_file(int slot);
// A temporary directory to remove on a stop signal, after every registered
// file (register the files it will hold): it goes if nothing else is in it.
// Released with release_temp_file.
int register_temp_dir(const std::string& path);

// What the stop line says had finished, e.g. "allreduce: point 3/8" (kept
// current by Progress); "" for nothing. At most 255 bytes are kept.
void set_stop_status(const std::string& text);

// Holds SIGINT, SIGTERM and SIGHUP back from the calling thread while it
// lives (a held signal is taken when it ends): around a temporary's creation
// and registration, or the creation of a thread that must never take them.
class StopSignalsHeld {
 public:
  StopSignalsHeld();
  ~StopSignalsHeld();
  StopSignalsHeld(const StopSignalsHeld&) = delete;
  StopSignalsHeld& operator=(const StopSignalsHeld&) = delete;

 private:
  sigset_t old_;
};

// Whether the run's outputs are in place (OutputTransaction::commit): the
// stop line then says they were kept, else that none was written and every
// earlier file is as it was.
void set_outputs_committed(bool committed);

// A child process to pass a stop signal on to.
void register_child(pid_t pid);
void release_child(pid_t pid);

}  // namespace kb
