// A bench: a named study that runs on an elaborated Platform and returns
// metrics, points and a summary table. Benches are registered in a
// BenchRegistry (new studies register theirs); the CLI is a thin shell over it.
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "platform/config/fidelity.h"
#include "platform/output/csv_table.h"

namespace kb {

class Platform;

struct ParamSpec {
  std::string name;
  std::string default_value;
  std::string description;
};

// --param values after validation against a bench's ParamSpecs.
class BenchParams {
 public:
  BenchParams() = default;
  // Applies "key=value" overrides over the specs' defaults. Throws UsageError
  // for a malformed override or an unknown key (naming the nearest valid one).
  BenchParams(const std::string& bench, const std::vector<ParamSpec>& specs,
              const std::vector<std::string>& overrides);
  const std::string& str(const std::string& key) const;
  // Whether --param gave `key` (rather than its default): a bench refuses a
  // parameter that does not apply to what the others chose.
  bool given(const std::string& key) const { return given_.count(key) != 0; }
  long long integer(const std::string& key) const;  // UsageError when not an integer
  // An integer whose magnitude is at most `max` (UsageError naming the bound):
  // shape parameters are bounded so every product of them fits in 64 bits.
  long long integer_within(const std::string& key, long long max) const;
  double number(const std::string& key) const;  // UsageError when not a number
  // A comma-separated value as its items (empty items dropped).
  std::vector<std::string> list(const std::string& key) const;
  // A comma-separated list of integers (each as integer() reads it).
  std::vector<long long> integers(const std::string& key) const;
  nlohmann::json to_json() const;

 private:
  std::string bench_;
  std::map<std::string, std::string> values_;
  std::set<std::string> given_;
};

struct SummaryTable {
  std::string title;
  std::vector<std::string> headers;
  std::vector<std::vector<std::string>> rows;
  std::string render() const;
};

struct BenchResult {
  nlohmann::json metrics = nlohmann::json::object();
  nlohmann::json points = nlohmann::json::array();
  std::vector<SummaryTable> tables;
  // Simulated time of the runs a bench made in child processes (ccl-sweep):
  // the end-of-run line and the JSON report it beside this process's own.
  double child_sim_time_ns = 0;
  unsigned child_runs = 0;
  // Where the bench simulated part of the work and extended the rest (the
  // llm bench's layer extension): the whole work's sim_time_ns, stats and
  // energy, written as "extended" beside the simulated ones; null otherwise.
  nlohmann::json extended;
  // Further tidy tables for --csv, beside the points' (csv_table_path): the
  // llm bench's phases and op classes.
  std::vector<CsvTable> csv_tables;
};

struct BenchContext {
  Platform& platform;
  const BenchParams& params;
  bool data_mode = false;
  // How the platform was configured (for benches that run child processes
  // on variants of it): the topology file ("" = the embedded default) and
  // the --set overrides, in order.
  std::string topology_file;
  std::vector<std::string> topology_overrides;
  // The kernbench binary for child processes ("" = this process's own).
  std::string kernbench_exe;
  bool quiet = false;  // -q: no progress lines on stderr
};

class Bench {
 public:
  virtual ~Bench() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  virtual std::vector<ParamSpec> params() const { return {}; }
  // Whether run() reads the op log. When it does not and no --oplog/--trace
  // asks for it, the CLI turns recording off (large runs make millions).
  virtual bool uses_op_log() const { return true; }
  // The topology this bench runs on when no --topology is given: the
  // repository path of an embedded one (platform/config/embedded_files.h),
  // or "" for the default ahbm_1sip.yaml.
  virtual std::string default_topology(const BenchParams&) const { return ""; }
  // The fidelity a run of this bench uses unless --fidelity says otherwise
  // (platform/config/fidelity.h): exact, unless the bench's runs need the
  // fast one to finish in minutes.
  virtual Fidelity default_fidelity() const { return Fidelity::kExact; }
  // The top-level fields of this bench's points: what a sweep's `columns:`
  // may name, checked before any point runs (docs/cli.md, Sweeps). Every
  // field a point may carry, whatever the parameters and the data mode; a
  // bench whose result has no points lists its metrics' fields (a sweep's
  // table row is then its metrics). Empty: not declared (a user's own bench
  // may leave it so), and a sweep checks its columns against the results
  // once its points ran. tests/integration/test_point_fields.cpp runs every
  // shipped bench and checks its points against this list.
  virtual std::vector<std::string> point_fields() const { return {}; }
  // The top-level fields of the metrics beside the points: a sweep column
  // naming one that is not a point field is told it is a metric of the whole
  // result, not a row's. (A result whose metrics are its one point's needs
  // none.)
  virtual std::vector<std::string> metric_fields() const { return {}; }
  virtual BenchResult run(BenchContext& ctx) = 0;
};

// `fields` followed by those of `more` it lacks: the fields of a point that
// one bench builds on another's (Bench::point_fields).
std::vector<std::string> with_fields(std::vector<std::string> fields,
                                     const std::vector<std::string>& more);

class BenchRegistry {
 public:
  // The registry with every bench the product ships.
  static BenchRegistry with_builtin_benches();

  void add(std::unique_ptr<Bench> bench);
  // Throws UsageError naming the nearest registered bench.
  Bench& find(const std::string& name) const;
  std::vector<const Bench*> all() const;

 private:
  std::vector<std::unique_ptr<Bench>> benches_;
};

// Each point's window: the Platform::run() windows made since the previous
// point was taken, so a point joins the op log, the trace and the runs.
class PointWindows {
 public:
  static constexpr const char* kField = "window";  // the point field stamp() sets
  explicit PointWindows(const Platform& platform);
  // Sets point[kField] to {"runs": [first, last] (numbered from 1, as the
  // VCD's system.phase), "start_ns", "end_ns", "cmd_ids": {PE path: [first,
  // last]}, "stats": the runs' stats deltas added up}; a point made without a
  // run (a skipped one) gets none.
  void stamp(nlohmann::json& point);

 private:
  const Platform& platform_;
  size_t first_;
};

// Number formatting for tables (fixed, `digits` decimals).
std::string fmt(double v, int digits = 1);

}  // namespace kb
