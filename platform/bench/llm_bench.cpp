#include "platform/bench/llm_bench.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <iostream>
#include <map>

#include "firmware/kernels/transformer_decode.h"
#include "firmware/kernels/transformer_prefill.h"
#include "models/common/errors.h"
#include "platform/bench/activity_counters.h"
#include "platform/llm/llm_mapping.h"
#include "platform/llm/llm_placement.h"
#include "platform/llm/llm_reference.h"
#include "platform/llm/llm_roofline.h"
#include "platform/llm/model_spec.h"
#include "platform/platform.h"
#include "platform/runtime/host_runtime.h"

namespace kb {

namespace {

constexpr const char* kModelPrefix = "model.";
const char* const kClasses[] = {"gemm", "attention", "allreduce", "norm_elementwise"};

std::vector<std::pair<std::string, std::string>> model_overrides(const BenchParams& p) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& f : model_spec_fields()) {
    const std::string& v = p.str(kModelPrefix + f);
    if (!v.empty()) out.emplace_back(f, v);
  }
  return out;
}

ModelSpec model_of(const BenchParams& p) {
  return load_model_spec(p.str("model"), model_overrides(p));
}

// Progress on stderr: layers done / total and the wall-time ETA; a line that
// rewrites itself on a terminal, a line per tenth of the run otherwise.
class Progress {
 public:
  explicit Progress(int64_t total) : total_(total), tty_(isatty(2) != 0) {}
  void layer_done(int layer) {
    const int64_t done = layer + 1;
    const double s = seconds();
    const double eta = s / static_cast<double>(done) * static_cast<double>(total_ - done);
    const int64_t tenth = std::max<int64_t>(1, total_ / 10);
    if (!tty_ && done % tenth != 0 && done != total_) return;
    std::cerr << (tty_ ? "\r" : "") << "llm: layer " << done << "/" << total_ << ", " << fmt(s, 0)
              << " s, ETA " << fmt(eta, 0) << " s" << (tty_ ? "   " : "\n") << std::flush;
    if (tty_ && done == total_) std::cerr << "\n";
  }

 private:
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  }
  int64_t total_;
  bool tty_;
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
};

std::string ratio(double measured, double bound) {
  return bound > 0 ? fmt(measured / bound, 2) : "-";
}

}  // namespace

std::vector<ParamSpec> LlmBench::params() const {
  std::vector<ParamSpec> p = {
      {"model", "llama3_70b", "llama3_70b | llama3_8b | a model spec YAML file"},
      {"phase", "decode",
       "decode (one token for every sequence of the batch) | prefill (each sequence's prompt "
       "into an empty cache: the time to first token)"},
      {"batch", "1", "sequences decoded together"},
      {"context", "8192",
       "decode: tokens already in each sequence's KV cache (any; the new token is "
       "at this position)"},
      {"prompt", "2048", "prefill: tokens in each sequence's prompt (any)"},
      {"layers", "0", "layers to simulate (0 = the model's depth; fewer is reported as such)"},
      {"mapping", "tp", "tp: tensor parallel over the PEs (see docs/ARCHITECTURE.md)"},
      {"ranks", "0", "PEs the model is spread over, from sip0.cube0.pe0 on (0 = every PE)"},
      {"tile", "64", "KV positions per attention tile"},
      {"variant", "opt2", "attention loop of every rank: opt1 | opt2 | opt3"},
      {"allreduce", "tree",
       "the all-reduces over every rank: tree (binomial, the whole vector per level) | "
       "hierarchical (ring reduce-scatter in each cube, a tree per segment across cubes, "
       "ring all-gather)"},
      {"attn_chunk", "0",
       "sequences whose attention states are reduced together (0 = as many as the TCM holds)"},
      {"seed", "1", "data mode: seed of the random weights, cache and embeddings"}};
  for (const std::string& f : model_spec_fields())
    p.push_back({kModelPrefix + f, "", "override the model spec's " + f});
  return p;
}

std::string LlmBench::default_topology(const BenchParams& params) const {
  if (params.str("model") == "llama3_70b") return "topologies/llama70b_4sip.yaml";
  return "";
}

BenchResult LlmBench::run(BenchContext& ctx) {
  const BenchParams& p = ctx.params;
  const ModelSpec model = model_of(p);
  const std::string phase = p.str("phase");
  if (phase != "decode" && phase != "prefill")
    throw UsageError("llm: --param phase=" + phase + ": expected decode or prefill");
  if (p.str("mapping") != "tp")
    throw UsageError("llm: --param mapping=" + p.str("mapping") +
                     ": the mappings are tp (tensor parallel over the PEs)");
  const std::string variant = p.str("variant");
  if (variant != "opt1" && variant != "opt2" && variant != "opt3")
    throw UsageError("llm: --param variant=" + variant + ": expected opt1, opt2 or opt3");
  LlmRun run;
  run.prefill = phase == "prefill";
  const std::string allreduce = p.str("allreduce");
  if (allreduce != "tree" && allreduce != "hierarchical")
    throw UsageError("llm: --param allreduce=" + allreduce + ": expected tree or hierarchical");
  run.cube_allreduce = allreduce == "hierarchical";
  run.prompt = p.integer_within("prompt", 1 << 20);
  run.batch = p.integer_within("batch", 1 << 16);
  run.context = p.integer_within("context", 1 << 24);
  run.layers = p.integer_within("layers", 1 << 16);
  run.tile = p.integer_within("tile", 1 << 16);
  run.variant = variant;
  run.attn_chunk = p.integer_within("attn_chunk", 1 << 16);
  const long long ranks = p.integer_within("ranks", 1 << 20);
  if (run.batch <= 0 || run.context < 0 || run.layers < 0 || run.tile <= 0 || ranks < 0 ||
      run.attn_chunk < 0 || run.prompt <= 0)
    throw UsageError(
        "llm: batch, prompt and tile must be > 0; context, layers, ranks and attn_chunk >= 0");
  if (run.layers > model.layers)
    throw UsageError("llm: --param layers=" + std::to_string(run.layers) + " but " + model.name +
                     " has " + std::to_string(model.layers));
  if (run.layers == 0) run.layers = model.layers;
  run.ranks = static_cast<unsigned>(ranks);

  Platform& platform = ctx.platform;
  const TopologyConfig& cfg = platform.config();
  const TpMapping map(model, run, cfg);
  // With fewer layers simulated, whether the whole model would fit.
  std::string full_model_fits = "yes";
  if (run.layers < model.layers) {
    LlmRun full = run;
    full.layers = model.layers;
    try {
      const TpMapping whole(model, full, cfg);
    } catch (const UsageError& e) {
      full_model_fits = e.what();
    }
  }
  const StepBound bound = step_bound(map, model, run, cfg);

  HostRuntime rt(platform);
  std::optional<ModelWeights> weights;
  if (ctx.data_mode)
    weights = random_model(model, run.layers, run.batch, run.prefill ? 0 : run.context,
                           static_cast<uint64_t>(p.integer("seed")), run.prefill ? run.prompt : 1);
  std::vector<fw::TransformerStepArgs> args =
      place_step(rt, map, model, run, weights ? &*weights : nullptr);

  Progress progress(run.layers);
  if (!ctx.quiet) args.front().layer_done = [&progress](int l) { progress.layer_done(l); };
  std::map<PeAddr, size_t> index;
  for (size_t i = 0; i < map.ranks().size(); ++i) index[map.ranks()[i].pe] = i;
  std::vector<PeId> pes;
  for (const RankPlan& r : map.ranks()) pes.push_back({r.pe.sip, r.pe.cube, r.pe.pe});
  std::vector<fw::PhaseRecord> phases;
  const ActivityCounters before = ActivityCounters::take(platform);
  const double t0 = platform.now_ns();
  rt.launch_on(pes, [&](fw::Tl& tl) {
    const size_t i = index.at(tl.self());
    if (run.prefill)
      fw::prefill_step(tl, args[i], i == 0 ? &phases : nullptr);
    else
      fw::decode_step(tl, args[i], i == 0 ? &phases : nullptr);
  });
  rt.run();
  const double latency = platform.now_ns() - t0;
  const ActivityCounters act = ActivityCounters::take(platform).since(before);

  // The per-layer op-class breakdown, as rank 0 saw it.
  const auto L = static_cast<size_t>(run.layers);
  std::map<std::string, std::vector<double>> per_layer;
  for (const char* c : kClasses) per_layer[c].assign(L, 0.0);
  std::map<std::string, double> tail;  // final norm and LM head
  std::map<std::string, double> by_phase;
  for (const fw::PhaseRecord& r : phases) {
    const double dt = r.end_ns - r.start_ns;
    by_phase[r.phase] += dt;
    if (r.layer < 0)
      tail[fw::phase_class(r.phase)] += dt;
    else
      per_layer[fw::phase_class(r.phase)][static_cast<size_t>(r.layer)] += dt;
  }
  auto total_of = [&](const std::string& c) {
    double t = tail.count(c) ? tail[c] : 0;
    for (double v : per_layer[c]) t += v;
    return t;
  };

  // Tokens the step produces (decode) or takes in (prefill).
  const double tokens = static_cast<double>(stream_rows(run));
  const double tokens_per_s = tokens / latency * 1e9;
  const double bound_tokens_per_s = tokens / bound.bound_ns * 1e9;
  const double W = static_cast<double>(map.ranks().size());
  const double hbm_util =
      static_cast<double>(bound.total_hbm_bytes) / (latency * W * cfg.pe_hbm_bandwidth_gbps());
  const double n_allreduce = 2.0 * static_cast<double>(run.layers);
  const double ar_measured = (by_phase["o_allreduce"] + by_phase["ffn_allreduce"]) / n_allreduce;
  const double gather_measured = by_phase["qkv_gather"] / static_cast<double>(run.layers);

  BenchResult res;
  res.metrics = {{"model", model.name},
                 {"model_source", model.source},
                 {"phase", phase},
                 {"batch", run.batch},
                 {"context", run.context},
                 {"layers_simulated", run.layers},
                 {"model_layers", model.layers},
                 {"all_layers_simulated", run.layers == model.layers},
                 {"all_layers_fit", full_model_fits},
                 {"mapping", map.describe()},
                 {"tokens_per_s", tokens_per_s},
                 {"roofline", bound.to_json()},
                 {"roofline_tokens_per_s", bound_tokens_per_s},
                 {"latency_over_bound", latency / bound.bound_ns},
                 {"hbm_util", hbm_util},
                 {"allreduce_measured_ns", ar_measured},
                 {"allreduce_over_model", ar_measured / bound.allreduce_model_ns},
                 {"qkv_gather_measured_ns", gather_measured},
                 {"qkv_gather_over_model", gather_measured / bound.qkv_gather_model_ns},
                 {"link_bytes", act.traffic.link_bytes},
                 {"cube_link_bytes", act.traffic.cube_link_bytes},
                 {"sip_link_bytes", act.traffic.sip_link_bytes},
                 {"ipcq_ops", act.ipcq_ops},
                 {"dma_ops", act.dma_ops()}};
  res.metrics[run.prefill ? "ttft_ns" : "latency_per_token_ns"] = latency;
  double attn_gather_measured = 0, attn_gather_model = 0;
  if (run.prefill) {
    res.metrics["prompt"] = run.prompt;
    attn_gather_measured = by_phase["attn_gather"] / static_cast<double>(run.layers);
    attn_gather_model = tree_allreduce_model_ns(
        map.ranks_per_group(),
        static_cast<uint64_t>(stream_rows(run) * model.group() * model.d_head) * 4, cfg);
    res.metrics["attn_gather_measured_ns"] = attn_gather_measured;
    res.metrics["attn_gather_over_model"] = attn_gather_measured / attn_gather_model;
  }
  // One flat point: what sweeps tabulate and scripts/plot_llm.py draws.
  nlohmann::json pt = {{"model", model.name},
                       {"batch", run.batch},
                       {"context", run.context},
                       {"layers", run.layers},
                       {"ranks", map.ranks().size()},
                       {"latency_ns", latency},
                       {"bound_ns", bound.bound_ns},
                       {"latency_over_bound", latency / bound.bound_ns},
                       {"tokens_per_s", tokens_per_s},
                       {"roofline_tokens_per_s", bound_tokens_per_s},
                       {"hbm_util", hbm_util},
                       {"allreduce_ns", ar_measured},
                       {"allreduce_model_ns", bound.allreduce_model_ns}};
  for (const char* c : kClasses)
    pt[std::string(c) + "_ns_per_layer"] = total_of(c) / static_cast<double>(run.layers);
  if (run.prefill) {
    pt["phase"] = phase;
    pt["prompt"] = run.prompt;
  }
  res.points.push_back(pt);
  nlohmann::json classes = nlohmann::json::object();
  for (const char* c : kClasses)
    classes[c] = {{"total_ns", total_of(c)}, {"per_layer_ns", per_layer[c]}};
  res.metrics["op_classes_rank0"] = classes;
  nlohmann::json phase_json = nlohmann::json::object();
  for (const auto& [k, v] : by_phase) phase_json[k] = v;
  res.metrics["phases_rank0_ns"] = phase_json;

  SummaryTable t{"llm " + phase + ": " + model.name + " (" + std::to_string(run.layers) + " of " +
                     std::to_string(model.layers) + " layers" +
                     (run.layers == model.layers ? "" : ", FEWER LAYERS AS ASKED") + "), batch " +
                     std::to_string(run.batch) +
                     (run.prefill ? ", prompt " + std::to_string(run.prompt)
                                  : ", context " + std::to_string(run.context)) +
                     ", mapping tp over " + std::to_string(map.ranks().size()) + " PEs",
                 {"figure", "measured", "bound / model", "ratio"},
                 {}};
  t.rows.push_back({run.prefill ? "time to first token (ns)" : "latency per token (ns)",
                    fmt(latency, 0), fmt(bound.bound_ns, 0), ratio(latency, bound.bound_ns)});
  t.rows.push_back({run.prefill ? "prompt tokens/s" : "tokens/s", fmt(tokens_per_s, 1),
                    fmt(bound_tokens_per_s, 1), ratio(tokens_per_s, bound_tokens_per_s)});
  t.rows.push_back({"HBM time of busiest rank (ns)", "-", fmt(bound.hbm_ns, 0), "-"});
  t.rows.push_back({"GEMM flops of busiest rank at peak (ns)", "-", fmt(bound.compute_ns, 0), "-"});
  t.rows.push_back(
      {"GEMM native tiles of busiest rank (ns)", "-", fmt(bound.gemm_tile_ns, 0), "-"});
  t.rows.push_back(
      {run.prefill ? "all-reduce [B*prompt,H] fp32 (ns, mean)" : "all-reduce [B,H] fp32 (ns, mean)",
       fmt(ar_measured, 0), fmt(bound.allreduce_model_ns, 0),
       ratio(ar_measured, bound.allreduce_model_ns)});
  t.rows.push_back({"QKV gather in a group (ns, mean)", fmt(gather_measured, 0),
                    fmt(bound.qkv_gather_model_ns, 0),
                    ratio(gather_measured, bound.qkv_gather_model_ns)});
  if (run.prefill)
    t.rows.push_back({"attention gather in a group (ns, mean)", fmt(attn_gather_measured, 0),
                      fmt(attn_gather_model, 0), ratio(attn_gather_measured, attn_gather_model)});
  t.rows.push_back({"HBM bandwidth utilisation", fmt(100 * hbm_util, 1) + "%", "100%", "-"});
  if (full_model_fits != "yes")
    t.title += "\n  (the whole model would not fit: " + full_model_fits + ")";
  res.tables.push_back(t);

  SummaryTable b{
      "where the time goes (rank 0, every layer summed)", {"op class", "ns", "share"}, {}};
  for (const char* c : kClasses)
    b.rows.push_back({c, fmt(total_of(c), 0), fmt(100 * total_of(c) / latency, 1) + "%"});
  res.tables.push_back(b);

  if (weights) {
    const std::vector<double> ref =
        run.prefill ? reference_logits(model, *weights, run.batch, 0, run.prompt)
                    : reference_logits(model, *weights, run.batch, run.context);
    const std::vector<float> got = read_logits(rt, map, args, run.batch, model.vocab);
    double max_err = 0, max_ref = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
      max_err = std::max(max_err, std::abs(static_cast<double>(got[i]) - ref[i]));
      max_ref = std::max(max_ref, std::abs(ref[i]));
    }
    const double rel = max_ref > 0 ? max_err / max_ref : max_err;
    res.metrics["logits_max_abs_err"] = max_err;
    res.metrics["logits_max_abs_ref"] = max_ref;
    res.metrics["logits_max_rel_err"] = rel;
    SummaryTable d{"data mode: logits vs the double-precision reference forward pass",
                   {"max |err|", "max |ref|", "max rel err"},
                   {{fmt(max_err, 6), fmt(max_ref, 4), fmt(rel, 6)}}};
    res.tables.push_back(d);
  }
  return res;
}

}  // namespace kb
