#include "platform/sweep/sweep_runner.h"

#include <unistd.h>

#include "platform/config/topology_loader.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <ostream>
#include <set>
#include <sstream>

#include "models/common/errors.h"
#include "platform/bench/bench.h"
#include "platform/output/result_writer.h"
#include "platform/util/spelling.h"
#include "platform/util/subprocess.h"

namespace kb {

namespace {

std::string point_file(const SweepOptions& o, unsigned index, const char* ext) {
  char name[32];
  std::snprintf(name, sizeof name, "point_%04u.%s", index, ext);
  return (std::filesystem::path(o.out_dir) / name).string();
}

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789_-./=:+,@%") == std::string::npos)
    return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string shell_line(const std::vector<std::string>& argv, const std::string& log) {
  std::string line;
  for (const auto& a : argv) line += (line.empty() ? "" : " ") + shell_quote(a);
  return line + " > " + shell_quote(log) + " 2>&1";
}

std::string tail_of(const std::string& path, size_t lines) {
  std::ifstream in(path);
  std::deque<std::string> last;
  std::string l;
  while (std::getline(in, l)) {
    last.push_back(l);
    if (last.size() > lines) last.pop_front();
  }
  std::string out;
  for (const auto& x : last) out += x + "\n";
  return out;
}

void ensure_out_dir(const SweepOptions& o) {
  std::error_code ec;
  std::filesystem::create_directories(o.out_dir, ec);
  if (ec) throw UsageError("--out " + o.out_dir + ": cannot create directory: " + ec.message());
}

std::string value_text(const nlohmann::json& v) {
  if (v.is_number_float()) return fmt(v.get<double>(), 3);
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

// Why the result in `file` is not this point's (empty when it is): a result
// left in the same --out by another sweep, or by this one before its spec
// changed, must never be reported as this point's numbers. The result records
// the bench, the topology it loaded with its --set overrides in order, every
// bench parameter's value and the data mode; each is compared with what this
// point's command line asks for.
std::string mismatch(const SweepSpec& spec, const SweepPoint& p, const nlohmann::json& r) {
  if (r.value("bench", "") != spec.bench)
    return "bench '" + r.value("bench", "") + "', not '" + spec.bench + "'";
  if (r.value("data_mode", false) != spec.data)
    return std::string("data mode ") + (spec.data ? "off" : "on");
  const nlohmann::json& topo = r.value("topology", nlohmann::json::object());
  if (!spec.topology.empty() && topo.value("source", "") != topology_source(spec.topology))
    return "topology '" + topo.value("source", "") + "', not '" + topology_source(spec.topology) +
           "'";
  std::vector<std::string> sets = spec.sets;
  for (const auto& [k, v] : p.sets) sets.push_back(k + "=" + v);
  if (topo.value("overrides", std::vector<std::string>{}) != sets) return "other --set values";
  std::vector<std::string> params = spec.params;
  for (const auto& [k, v] : p.params) params.push_back(k + "=" + v);
  const nlohmann::json& have = r.value("params", nlohmann::json::object());
  for (const std::string& kv : params) {
    const size_t eq = kv.find('=');
    const std::string k = kv.substr(0, eq), v = eq == std::string::npos ? "" : kv.substr(eq + 1);
    if (!have.contains(k) || !have[k].is_string() || have[k].get<std::string>() != v)
      return "--param " + k + "=" + (have.contains(k) ? value_text(have[k]) : "(none)") + ", not " +
             v;
  }
  return "";
}

enum class PointState { kMissing, kOk, kStale };

// Reads OUT/point_NNNN.json of `p`; `why` says what differs when stale.
PointState read_point(const SweepSpec& spec, const SweepOptions& opts, const SweepPoint& p,
                      nlohmann::json& result, std::string& why) {
  std::ifstream in(point_file(opts, p.index, "json"));
  if (!in) return PointState::kMissing;
  try {
    result = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception&) {
    return PointState::kMissing;
  }
  if (!result.is_object() || !result.contains("points")) return PointState::kMissing;
  why = mismatch(spec, p, result);
  return why.empty() ? PointState::kOk : PointState::kStale;
}

}  // namespace

nlohmann::json sweep_rows(const nlohmann::json& result) {
  if (!result.at("points").empty()) return result.at("points");
  return nlohmann::json::array({result.value("metrics", nlohmann::json::object())});
}

nlohmann::json run_sweep(const SweepSpec& spec, const SweepOptions& opts, std::ostream& progress) {
  ensure_out_dir(opts);
  const std::vector<SweepPoint> points = spec.expand();
  const auto t0 = std::chrono::steady_clock::now();
  // --resume keeps the points whose result is already theirs.
  std::vector<const SweepPoint*> todo;
  for (const SweepPoint& p : points) {
    nlohmann::json have;
    std::string why;
    if (opts.resume && read_point(spec, opts, p, have, why) == PointState::kOk) continue;
    todo.push_back(&p);
  }
  size_t done = points.size() - todo.size(), failed = 0, started = 0;
  // What each point cost the machine (not deterministic, so not in sweep.json).
  nlohmann::json resources = nlohmann::json::object();
  // On a terminal one line rewritten at every start and end; in a log a line
  // per finished point.
  const bool tty = &progress == &std::cerr && isatty(2) != 0;
  auto report = [&](bool finished) {
    if (!tty && !finished) return;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double eta =
        done ? elapsed / static_cast<double>(done) * static_cast<double>(points.size() - done) : 0;
    const size_t running = started - (done - (points.size() - todo.size()));
    progress << (tty ? "\r" : "") << "sweep: " << done << "/" << points.size() << " done";
    if (failed) progress << " (" << failed << " failed)";
    progress << ", " << running << " running, " << fmt(elapsed, 0) << " s";
    if (done) progress << ", ETA " << fmt(eta, 0) << " s";
    progress << (tty ? "   " : "\n") << std::flush;
  };
  run_children(
      todo.size(), opts.jobs,
      [&](size_t i) {
        const std::string json = point_file(opts, todo[i]->index, "json");
        std::filesystem::remove(json);
        ++started;
        report(false);
        return spec.command(opts.exe, *todo[i], json);
      },
      [&](size_t i) { return point_file(opts, todo[i]->index, "log"); }, true,
      [&](size_t i, const ChildExit& e) {
        resources[std::to_string(todo[i]->index)] = {
            {"wall_s", e.wall_s}, {"max_rss_kib", e.max_rss_kib}, {"exit", e.code}};
        ++done;
        if (e.code != 0) ++failed;
        if (e.code > 128) {  // its log says which signal ended it (it may not have)
          std::ofstream log(point_file(opts, todo[i]->index, "log"), std::ios::app);
          log << "kernbench: point " << todo[i]->index << " ended by signal "
              << signal_name(e.code - 128) << " (exit " << e.code << ")\n";
        }
        report(true);
      });
  if (tty) {
    report(true);
    progress << "\n";
  } else if (todo.empty()) {
    report(true);
  }
  write_file_atomically((std::filesystem::path(opts.out_dir) / "resources.json").string(),
                        resources.dump(2) + "\n");
  return merge_sweep(spec, opts);
}

namespace {

// A grid value as the JSON type it reads as: an integer, a finite real,
// true or false; anything else ("32KiB", "hbm", "1e400") stays text.
nlohmann::json typed_value(const std::string& v) {
  if (v == "true" || v == "false") return v == "true";
  if (v.empty() || std::isspace(static_cast<unsigned char>(v.front()))) return v;
  errno = 0;
  char* end = nullptr;
  const long long i = std::strtoll(v.c_str(), &end, 10);
  if (errno == 0 && *end == '\0') return i;
  errno = 0;
  const double d = std::strtod(v.c_str(), &end);
  if (errno == 0 && *end == '\0' && std::isfinite(d)) return d;
  return v;
}

// A typed grid value as the text the spec gave.
std::string grid_text(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace

namespace {

// Why the incomplete merge `m` must not replace the sweep.json at `path`: that
// file holds more (a complete merge, or another sweep's); "" to replace it.
std::string reason_to_keep(const std::string& path, const nlohmann::json& m) {
  if (m["failed"].get<unsigned>() == 0 && m["missing"].get<unsigned>() == 0) return "";
  std::ifstream in(path);
  if (!in) return "";
  const nlohmann::json old = nlohmann::json::parse(in, nullptr, false);
  if (!old.is_object()) return "";
  const std::string old_sweep = old.value("sweep", std::string());
  if (old_sweep != m["sweep"].get<std::string>() ||
      old.value("bench", std::string()) != m["bench"].get<std::string>())
    return "it holds the merge of another sweep (" + old_sweep + ")";
  if (old.value("failed", 1u) == 0 && old.value("missing", 1u) == 0)
    return "it holds a complete merge of this sweep";
  return "";
}

}  // namespace

nlohmann::json merge_sweep(const SweepSpec& spec, const SweepOptions& opts) {
  nlohmann::json m;
  m["sweep"] = spec.source;
  m["bench"] = spec.bench;
  m["runs"] = nlohmann::json::array();
  unsigned failed = 0, missing = 0;
  size_t found = 0;
  const std::vector<SweepPoint> points = spec.expand();
  for (const SweepPoint& p : points) {
    nlohmann::json r;
    r["index"] = p.index;
    r["set"] = nlohmann::json::object();
    r["param"] = nlohmann::json::object();
    for (const auto& [k, v] : p.sets) r["set"][k] = typed_value(v);
    for (const auto& [k, v] : p.params) r["param"][k] = typed_value(v);
    const std::string json = point_file(opts, p.index, "json");
    std::string cmd;
    for (const auto& a : spec.command(opts.exe, p, json)) cmd += (cmd.empty() ? "" : " ") + a;
    r["command"] = cmd;
    nlohmann::json result;
    std::string why;
    const PointState state = read_point(spec, opts, p, result, why);
    if (state != PointState::kMissing || std::filesystem::exists(point_file(opts, p.index, "log")))
      ++found;  // this directory holds a run of the point, good or not
    if (state == PointState::kOk) {
      r["status"] = "ok";
      r["sim_time_ns"] = result.value("sim_time_ns", 0.0);
      r["metrics"] = result.value("metrics", nlohmann::json::object());
      r["points"] = result["points"];
    } else if (state == PointState::kStale) {
      ++failed;
      r["status"] = "stale";
      r["reason"] = json + " is another run's result (" + why + "); rerun the point";
    } else if (!std::filesystem::exists(json) &&
               !std::filesystem::exists(point_file(opts, p.index, "log"))) {
      ++missing;  // never run here: neither a result nor a log
      r["status"] = "missing";
      r["reason"] = "never run (no " + json + " and no log); run it with --resume";
    } else {
      ++failed;
      r["status"] = "failed";
      r["log_tail"] = tail_of(point_file(opts, p.index, "log"), 20);
    }
    m["runs"].push_back(r);
  }
  if (opts.merge_only && found == 0)
    throw UsageError("--merge: no point results in '" + opts.out_dir + "' (point_0000.json ...); " +
                     "run the sweep first, or give the --out it wrote to");
  m["total"] = points.size();
  m["failed"] = failed;
  m["missing"] = missing;
  const std::string path = (std::filesystem::path(opts.out_dir) / "sweep.json").string();
  const std::string keep = reason_to_keep(path, m);
  if (keep.empty())
    write_file_atomically(path, m.dump(2) + "\n");
  else
    m["sweep_json_kept"] = path + " was not replaced: " + keep;
  return m;
}

namespace {

// What to say of `column`, which is none of the point `fields`: for a
// metric of the whole result, that it is one and which point fields start
// alike (the table has a row per point, so the metric has no cell); else the
// nearest point field, if any is near; "" when there is nothing to add.
std::string column_hint(const std::string& column, std::vector<std::string> fields,
                        bool is_metric) {
  std::sort(fields.begin(), fields.end());
  if (!is_metric) {
    const std::string near = nearest_spelling(column, fields);
    return near.empty() ? "" : "; did you mean '" + near + "'?";
  }
  std::string msg = "; it is a metric of the whole result, and a table row is one of its points";
  const size_t cut = column.find('_');
  const std::string stem = cut == std::string::npos ? column : column.substr(0, cut + 1);
  std::string alike;
  for (const std::string& n : fields)
    if (n.compare(0, stem.size(), stem) == 0) alike += (alike.empty() ? "" : ", ") + n;
  if (!alike.empty()) msg += " (point fields like it: " + alike + ")";
  return msg;
}

}  // namespace

bool check_sweep_columns(const SweepSpec& spec, const Bench& bench) {
  const std::vector<std::string> fields = bench.point_fields();
  if (fields.empty()) return false;
  const std::vector<std::string> metrics = bench.metric_fields();
  for (size_t i = 0; i < spec.columns.size(); ++i) {
    const std::string& c = spec.columns[i];
    if (std::find(fields.begin(), fields.end(), c) != fields.end()) continue;
    const bool is_metric = std::find(metrics.begin(), metrics.end(), c) != metrics.end();
    std::string hint = column_hint(c, fields, is_metric);
    if (hint.empty()) {  // nothing near: say what there is
      std::string all;
      for (const std::string& f : fields) all += (all.empty() ? "" : ", ") + f;
      hint = " (its points' fields: " + all + ")";
    }
    throw ConfigError((i < spec.column_at.size() ? spec.column_at[i] : spec.source) +
                      ": columns: bench '" + bench.name() + "' has no point field '" + c + "'" +
                      hint);
  }
  return true;
}

void check_sweep_columns(const SweepSpec& spec, const nlohmann::json& merged) {
  std::set<std::string> have, metrics;  // point fields; metrics of results that have points
  bool any_ok = false;
  for (const auto& r : merged["runs"]) {
    if (r["status"] != "ok") continue;
    any_ok = true;
    for (const auto& pt : sweep_rows(r))
      for (const auto& [k, v] : pt.items()) have.insert(k);
    if (!r["points"].empty() && r["metrics"].is_object())
      for (const auto& [k, v] : r["metrics"].items()) metrics.insert(k);
  }
  if (!any_ok) return;  // nothing to check against: the failures say why
  const std::vector<std::string> names(have.begin(), have.end());
  for (const std::string& c : spec.columns) {
    if (have.count(c)) continue;
    throw UsageError(spec.source + ": columns: '" + c + "' is in no point's result" +
                     column_hint(c, names, metrics.count(c) != 0) +
                     " (the results are merged in sweep.json)");
  }
}

std::string sweep_table(const SweepSpec& spec, const nlohmann::json& merged) {
  std::vector<std::string> columns = spec.columns;
  if (columns.empty())
    for (const auto& r : merged["runs"]) {
      if (r["status"] != "ok") continue;
      const nlohmann::json first = sweep_rows(r)[0];
      for (const auto& [k, v] : first.items())
        if (v.is_number()) columns.push_back(k);
      break;
    }
  SummaryTable t{"sweep " + spec.source + ": " + spec.bench + ", " +
                     std::to_string(merged["total"].get<size_t>()) + " points, " +
                     std::to_string(merged["failed"].get<unsigned>()) + " failed" +
                     (merged.value("missing", 0u)
                          ? ", " + std::to_string(merged["missing"].get<unsigned>()) + " missing"
                          : ""),
                 {"point"},
                 {}};
  for (const auto& a : spec.axes) t.headers.push_back(a.key);
  t.headers.emplace_back("status");
  for (const auto& c : columns) t.headers.push_back(c);
  for (const auto& r : merged["runs"]) {
    std::vector<std::string> head = {std::to_string(r["index"].get<unsigned>())};
    for (const auto& a : spec.axes) head.push_back(grid_text(r[a.is_set ? "set" : "param"][a.key]));
    if (r["status"] != "ok") {
      std::vector<std::string> row = head;
      row.emplace_back(r["status"] == "stale"     ? "STALE"
                       : r["status"] == "missing" ? "MISSING"
                                                  : "FAILED");
      row.resize(t.headers.size(), "-");
      t.rows.push_back(row);
      continue;
    }
    const nlohmann::json pts = sweep_rows(r);
    for (const auto& pt : pts) {
      std::vector<std::string> row = head;
      row.emplace_back("ok");
      for (const auto& c : columns) row.push_back(pt.contains(c) ? value_text(pt[c]) : "-");
      t.rows.push_back(row);
    }
  }
  std::string out = t.render();
  for (const auto& r : merged["runs"]) {
    if (r["status"] == "stale" || r["status"] == "missing")
      out += "\npoint " + std::to_string(r["index"].get<unsigned>()) +
             " not merged: " + r["reason"].get<std::string>() + "\n";
    else if (r["status"] != "ok")
      out += "\npoint " + std::to_string(r["index"].get<unsigned>()) +
             " failed: " + r["command"].get<std::string>() + "\n" +
             r["log_tail"].get<std::string>();
  }
  return out;
}

void write_job_file(const SweepSpec& spec, const SweepOptions& opts, const std::string& path) {
  ensure_out_dir(opts);
  std::string text;
  for (const SweepPoint& p : spec.expand())
    text += shell_line(spec.command(opts.exe, p, point_file(opts, p.index, "json")),
                       point_file(opts, p.index, "log")) +
            "\n";
  write_file_atomically(path, text);
}

void write_slurm_script(const SweepSpec& spec, const SweepOptions& opts,
                        const std::string& jobs_path, const std::string& path) {
  write_job_file(spec, opts, jobs_path);
  const size_t n = spec.expand().size();
  std::ostringstream s;
  s << "#!/bin/bash\n"
    << "# Slurm job array for the sweep " << spec.source << " (" << n << " points).\n"
    << "# Submit: sbatch " << path << "\n"
    << "# Then:   " << opts.exe << " --sweep " << spec.source << " --out " << opts.out_dir
    << " --merge\n"
    << "#SBATCH --job-name=kernbench-sweep\n"
    << "#SBATCH --array=0-" << (n - 1) << "\n"
    << "#SBATCH --ntasks=1\n"
    << "#SBATCH --output=" << opts.out_dir << "/slurm_%a.out\n";
  std::vector<std::pair<std::string, std::string>> res = {{"cpus_per_task", "1"}};
  for (const auto& given : {spec.slurm, opts.slurm})
    for (const auto& kv : given) {
      auto it =
          std::find_if(res.begin(), res.end(), [&](const auto& r) { return r.first == kv.first; });
      if (it == res.end())
        res.push_back(kv);
      else
        it->second = kv.second;
    }
  for (const auto& [k, v] : res) {
    std::string opt = k;
    std::replace(opt.begin(), opt.end(), '_', '-');
    s << "#SBATCH --" << opt << "=" << v << "\n";
  }
  s << "set -euo pipefail\n"
    << "line=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" " << shell_quote(jobs_path) << ")\n"
    << "exec bash -c \"$line\"\n";
  write_file_atomically(path, s.str());
}

}  // namespace kb
