// The `kernbench` command line, as a library function so tests can drive it.
// Exit codes: 0 success, 2 usage or configuration error, 3 simulation fault,
// 1 internal error.
#pragma once

namespace kb {

int kernbench_main(int argc, char* argv[]);

}  // namespace kb
