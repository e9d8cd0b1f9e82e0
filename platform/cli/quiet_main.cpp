// main() for every program that links the platform (the kernbench binary, a
// user's own sc_main): keeps the SystemC banner off stdout, where results and
// tables are the only output, then enters SystemC as usual (sc_main). It is
// the only object of the kb_main archive, so a program that defines its own
// main() keeps it: the linker takes this one only when main is missing.
//
// Before that it asks glibc to back the heap with transparent huge pages
// (GLIBC_TUNABLES=glibc.malloc.hugetlb=1), re-executing the program once with
// that set. A platform is hundreds of thousands of small objects and, while
// it runs, thousands of coroutine stacks: with 4 KiB pages, elaborating 8192
// PEs spends a third of its time in page faults, and a big run's events miss
// the TLB. The tunable changes where memory comes from, never a result.
// Not done when the tunable is already set (by the user, or by this re-exec),
// when KB_HUGEPAGES=0, or under valgrind (its tools would lose the program at
// the exec). If the exec fails, the program runs as it is.
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <systemc>

namespace {

void reexec_with_huge_pages(char* argv[]) {
  const char* off = std::getenv("KB_HUGEPAGES");
  if (off && std::strcmp(off, "0") == 0) return;
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables && std::strstr(tunables, "glibc.malloc.hugetlb")) return;
  const char* preload = std::getenv("LD_PRELOAD");
  if (preload && std::strstr(preload, "vgpreload")) return;
  const std::string value = tunables && *tunables
                                ? std::string(tunables) + ":glibc.malloc.hugetlb=1"
                                : std::string("glibc.malloc.hugetlb=1");
  if (setenv("GLIBC_TUNABLES", value.c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);
}

}  // namespace

int main(int argc, char* argv[]) {
  reexec_with_huge_pages(argv);
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
