// Your own Platform and HostRuntime in a hand-written sc_main, without the
// kernbench command line (kb::run_main gives a program that): print what a
// kernel gets of each PE's memories, run relu on PE 0.0.0, print the time.
#include <exception>
#include <iostream>

#include "platform/cli/kernbench_app.h"       // kb::init
#include "platform/config/topology_loader.h"  // kb::load_topology
#include "platform/platform.h"                // kb::Platform
#include "platform/process/report_policy.h"   // kb::install_report_policy
#include "platform/runtime/host_runtime.h"    // kb::HostRuntime

int sc_main(int argc, char* argv[]) {
  kb::init();                   // first: 1 ps time resolution, stop-signal handling
  kb::install_report_policy();  // a simulation fault throws out of run()
  try {
    // A shipped topology by name, or a YAML file; then overrides as --set takes
    // them (this one restates tiny's value, to show the form).
    const kb::TopologyConfig cfg =
        kb::load_topology(argc > 1 ? argv[1] : "tiny", {"pe.scheduler.staging_buffers=8"});
    kb::Platform platform(cfg);        // one per process: SystemC elaborates once
    std::cout << platform.describe();  // the limits: TCM arena, HBM and SRAM for tensors

    kb::HostRuntime rt(platform);
    const kb::PeId pe{0, 0, 0};  // {sip, cube, pe}
    const kb::fw::Tensor x = rt.alloc_hbm(pe, {64, 256}, kb::DType::kFp16);
    rt.launch_on({pe}, [&](kb::fw::Tl& tl) {
      const kb::fw::Tensor t = tl.load(x);         // HBM -> the TCM arena (PE_DMA)
      tl.wait(tl.store(x, tl.math("relu", {t})));  // PE_MATH, then back to HBM
    });
    std::cout << "relu of 64x256 fp16 on PE 0.0.0: " << rt.run() << " ns simulated\n";
    return 0;
  } catch (const std::exception& e) {  // a configuration, allocation or simulation error
    std::cerr << "own_platform: " << e.what() << "\n";
    return 1;
  }
}
