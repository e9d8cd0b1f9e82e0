// Runs a SweepSpec: locally (up to N kernbench processes at a time, with a
// progress line), or as job files for GNU parallel and a Slurm array, and
// merges the per-point JSON results into one table whichever ran them.
//
// Every point writes OUT/point_NNNN.json (its kernbench result) and
// OUT/point_NNNN.log (its stdout and stderr); a local run also writes
// OUT/resources.json, each point's wall time, peak RSS (KiB) and exit code. A failed point is
// reported with its command and the tail of its log and does not stop the others.
#pragma once

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>

#include "platform/sweep/sweep_spec.h"

namespace kb {

class Bench;

struct SweepOptions {
  std::string out_dir;
  std::string exe;    // the kernbench binary the points run
  unsigned jobs = 2;  // processes at a time
  // Keep the points whose OUT/point_NNNN.json is already this point's result
  // (same bench, topology, --set, --param and data mode); run the others.
  bool resume = false;
  bool merge_only = false;  // merge_sweep() without running: no result at all is an error
  // Slurm resources given on the command line (--slurm KEY=VALUE): they win
  // over the spec's.
  std::vector<std::pair<std::string, std::string>> slurm;
};

// The rows a result gives the sweep's table: its points, or, from a bench
// that reports only metrics, one: its metrics. A point file's result and a
// merged run (merge_sweep) alike.
nlohmann::json sweep_rows(const nlohmann::json& result);

// Runs every point; returns the merged result (see merge_sweep).
nlohmann::json run_sweep(const SweepSpec& spec, const SweepOptions& opts, std::ostream& progress);

// Reads OUT/point_*.json of every point into one document: the spec, and per
// point its axis values, status, command, and its result points (ok), the
// log tail (failed) or why the file there is another run's result (stale: a
// different bench, topology, --set, --param or data mode; never merged).
// Deterministic: no wall time. Also written to OUT/sweep.json.
nlohmann::json merge_sweep(const SweepSpec& spec, const SweepOptions& opts);

// The spec's columns against the fields `bench` declares, before any point
// runs (docs/cli.md, Sweeps): ConfigError "FILE:LINE:COLUMN: columns: ..."
// for an entry that is not a field of its points (Bench::point_fields),
// naming the nearest one, or, for a metric of the whole result
// (Bench::metric_fields), saying so and naming the point fields like it.
// False, having checked nothing, when the bench declares no point fields (a
// user's own bench may not): the overload below then checks the columns
// against the results.
bool check_sweep_columns(const SweepSpec& spec, const Bench& bench);

// After the points ran, for a bench that declares no point fields:
// UsageError, with the same hints, for a spec column that no ok point's
// result has.
void check_sweep_columns(const SweepSpec& spec, const nlohmann::json& merged);

// The merged result as a table: point, axis values, status, then `columns`
// of every result point (default: the numeric fields of the first one).
std::string sweep_table(const SweepSpec& spec, const nlohmann::json& merged);

// One shell line per point (`parallel -j2 < FILE`), and a Slurm array script
// running line $SLURM_ARRAY_TASK_ID + 1 of that file. Afterwards
// `kernbench --sweep SWEEP.yaml --out DIR --merge` prints the same table.
void write_job_file(const SweepSpec& spec, const SweepOptions& opts, const std::string& path);
void write_slurm_script(const SweepSpec& spec, const SweepOptions& opts,
                        const std::string& jobs_path, const std::string& path);

}  // namespace kb
