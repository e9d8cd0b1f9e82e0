// A configuration sweep: one bench over the grid of --set / --param values a
// YAML spec names, one kernbench process per point (SystemC
// elaborates once per process).
//
//   bench: gemm                        # the bench every point runs
//   topology: topologies/tiny.yaml     # optional (default: embedded)
//   set: [pe.dma.setup_ns=2]           # optional, fixed overrides
//   param: [variant=load_ref]          # optional, fixed bench parameters
//   data: false                        # optional, data mode
//   grid:                              # the axes, expanded as a cartesian product
//     set:   {sip.cube_link.bandwidth_gbps: [64, 128]}
//     param: {M: [32, 64]}
//   columns: [window_ns, tflops]       # optional: point fields for the table
//   slurm: {time: "01:00:00", mem: 4G, partition: cpu}   # optional: --emit-slurm resources
//
// Axes expand in file order, the last one fastest. Errors name the spec file,
// line and column, and the key.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace kb {

struct SweepAxis {
  bool is_set = true;  // --set (topology knob) or --param (bench parameter)
  std::string key;
  std::vector<std::string> values;
};

struct SweepPoint {
  unsigned index = 0;
  std::vector<std::pair<std::string, std::string>> sets, params;  // the axis values
};

struct SweepSpec {
  std::string source;  // the spec file
  std::string bench;
  std::string topology;  // "" = embedded default
  std::vector<std::string> sets, params;
  bool data = false;
  std::vector<SweepAxis> axes;
  std::vector<std::string> columns;
  // Where each of `columns` is in the spec ("FILE:LINE:COLUMN"), for errors.
  std::vector<std::string> column_at;
  // Slurm resources of --emit-slurm's script, by key (kSlurmKeys), as given.
  std::vector<std::pair<std::string, std::string>> slurm;

  std::vector<SweepPoint> expand() const;
  // The kernbench command line of one point (argv; argv[0] = `exe`), writing
  // its JSON to `json`.
  std::vector<std::string> command(const std::string& exe, const SweepPoint& p,
                                   const std::string& json) const;
};

// The Slurm resources a spec or --slurm may set: sbatch's options of the same
// names (cpus_per_task is --cpus-per-task).
extern const std::vector<std::string> kSlurmKeys;
// "" when `value` may be written as a #SBATCH option, else what is wrong.
std::string slurm_value_error(const std::string& value);
// "" when `value` is a valid `key` resource (time: a Slurm time limit, mem: a
// positive size with an optional K/M/G/T, cpus_per_task: a positive
// integer; the others: any), else what is wrong.
std::string slurm_resource_error(const std::string& key, const std::string& value);

// Throws ConfigError with file:line:column and the key path.
SweepSpec load_sweep_spec(const std::string& path);
// The same from text (`source` names it in errors).
SweepSpec load_sweep_spec_text(const std::string& text, const std::string& source);

}  // namespace kb
