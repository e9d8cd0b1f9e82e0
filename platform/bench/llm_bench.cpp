#include "platform/bench/llm_bench.h"

#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <optional>

#include "firmware/kernels/transformer_decode.h"
#include "firmware/kernels/transformer_pipeline.h"
#include "firmware/kernels/transformer_prefill.h"
#include "models/common/errors.h"
#include "platform/analytic/allreduce_model.h"
#include "platform/analytic/llm_model.h"
#include "platform/analytic/llm_roofline.h"
#include "platform/bench/activity_counters.h"
#include "platform/bench/layer_extension.h"
#include "platform/bench/phase_energy.h"
#include "platform/bench/progress.h"
#include "platform/config/embedded_files.h"
#include "platform/config/topology_loader.h"
#include "platform/llm/llm_mapping.h"
#include "platform/llm/llm_placement.h"
#include "platform/llm/llm_reference.h"
#include "platform/llm/model_spec.h"
#include "platform/llm/norm_kernels.h"
#include "platform/platform.h"
#include "platform/runtime/host_runtime.h"
#include "platform/util/size_text.h"

namespace kb {

namespace {

constexpr const char* kModelPrefix = "model.";
const char* const kClasses[] = {"gemm", "attention", "allreduce", "norm_elementwise"};
constexpr const char* kPipelineClass = "pipeline";  // a pipeline's op class beside kClasses
// The key prefixes of the residual stream's collectives (stream_collectives)
// in the point and the metrics.
constexpr const char* kStreamAllreduce = "allreduce";
constexpr const char* kStreamReduceScatter = "reduce_scatter";
constexpr const char* kStreamNormGather = "norm_gather";

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

std::string ratio(double measured, double bound) {
  return bound > 0 ? fmt(measured / bound, 2) : "-";
}

// What one run planned and measured, whichever the mapping.
struct Executed {
  // The plan.
  struct Stage {
    LlmRun run;
    std::unique_ptr<TpMapping> map;
  };
  std::vector<Stage> plan;            // the pipeline's stages (tp: one)
  int64_t micro = 1;                  // micro-batches (tp: one)
  std::vector<fw::Slice> micro_rows;  // sequences of each micro-batch
  StepBound bound;
  // A tensor-parallel decode step's model, when choosing the residual stream
  // already priced the step as planned (add_step_model then reuses it).
  std::optional<LlmStepModel> step_model;
  nlohmann::json mapping;
  std::string title;  // ", mapping ..." for the table
  std::string fits = "yes";
  size_t ranks = 0;
  unsigned ranks_per_group = 0;
  bool prefill = false;
  // The measurement.
  double latency = 0;
  ActivityCounters act;
  EnergyReport energy;   // the whole platform over the step's latency
  double static_mw = 0;  // the whole platform's static power
  // The same energy by the op class of the phases that spent it (PhaseEnergy).
  std::map<std::string, double> pj_by_op_class;
  std::vector<fw::PhaseRecord> phases;
  // Tensor parallel: per phase, over every layer, what it added to the
  // step's critical path (the advance of the latest end over all ranks).
  std::map<std::string, double> critical;
  std::vector<float> logits;    // data mode
  std::string residual_choice;  // residual=auto: what it chose, and why
  // The layer extension (platform/bench/layer_extension.h): with it, every
  // figure above is the whole step's, extended; these are what was simulated.
  double simulated_latency = 0;
  double latency_error = 0;
  nlohmann::json extended;  // BenchResult::extended
};

// With fewer layers simulated than `layers` (the model's, or a stage's share
// of them), whether that many would fit `run`'s mapping: "yes" or why not.
std::string fits_with(const ModelSpec& model, LlmRun run, int64_t layers,
                      const TopologyConfig& cfg) {
  if (run.layers >= layers) return "yes";
  run.layers = layers;
  try {
    const TpMapping whole(model, run, cfg);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "yes";
}

// The summary's row of a group's QKV gather (a decode step's model replaces
// the bare all-reduce model beside it: add_step_model).
const char* const kQkvGatherRow = "QKV gather in a group (ns, mean)";

// The collectives of the residual stream, per layer on average as the step
// saw them, beside their models: the all-reduce of the partial sums, or
// (sharded) their reduce-scatter and the all-gather of xn.
struct StreamCollective {
  std::string label, key;  // the table's row; the metrics' key prefix
  double measured, model;
};

std::vector<StreamCollective> stream_collectives(std::map<std::string, double>& seen, double passes,
                                                 const LlmRun& run, const ModelSpec& model,
                                                 const StepBound& bound) {
  const std::string rows = run.prefill ? "[B*prompt,H]" : "[B,H]";
  auto mean = [&](const char* a, const char* b) { return (seen[a] + seen[b]) / (2 * passes); };
  if (!run.sharded_residual)
    return {{"all-reduce " + rows + " fp32 (ns, mean)", kStreamAllreduce,
             mean(fw::phase::kOAllreduce, fw::phase::kFfnAllreduce), bound.allreduce_model_ns}};
  return {
      {"reduce-scatter " + rows + " fp32 (ns, mean)", kStreamReduceScatter,
       mean(fw::phase::kOReduceScatter, fw::phase::kFfnReduceScatter),
       bound.reduce_scatter_model_ns},
      {"all-gather of xn " + rows + " " + to_string(model.dtype) + " (ns, mean)", kStreamNormGather,
       mean(fw::phase::kAttnNormGather, fw::phase::kFfnNormGather), bound.norm_gather_model_ns}};
}

// residual=auto: the residual stream a step takes, and why. A decode step
// takes the one its step model prices faster (the sharded stream saves the
// norms and adds over every row and half of each collective's all-gather,
// and costs an all-reduce of the norm's sums of squares: it wins from a
// few rows on); a prefill, whose stream is batch x prompt rows, the sharded
// one. Replicated where the sharded stream cannot run.
LlmRun choose_residual(const ModelSpec& model, LlmRun run, const TopologyConfig& cfg,
                       std::string* why, std::optional<LlmStepModel>* chosen_model) {
  run.auto_residual = false;
  if (run.norm != kBuiltinNorm) {
    *why = "replicated: norm=" + run.norm + " runs on whole rows";
    return run;
  }
  const TpMapping rm(model, run, cfg);
  if (rm.allreduce_across() != fw::CrossCube::kHalving) {
    *why =
        "replicated: the sharded stream's reduce-scatter and all-gather need the halving "
        "all-reduce (ranks filling a power of two of whole cubes; allreduce=auto or halving)";
    return run;
  }
  LlmRun sharded = run;
  sharded.sharded_residual = true;
  const TpMapping sm(model, sharded, cfg);  // (any other error is the step's own)
  if (run.prefill) {
    *why = "sharded: a prefill's stream is batch x prompt rows";
    return sharded;
  }
  LlmStepModel r_model = llm_decode_model(rm, run, cfg);
  LlmStepModel s_model = llm_decode_model(sm, sharded, cfg);
  const double r_ns = r_model.total_ns, s_ns = s_model.total_ns;
  const bool take = s_ns < r_ns;
  *chosen_model = std::move(take ? s_model : r_model);
  *why = std::string(take ? "sharded" : "replicated") + ": the step model prices replicated " +
         fmt(r_ns, 0) + " ns, sharded " + fmt(s_ns, 0) + " ns";
  return take ? sharded : run;
}

Executed plan_tensor_parallel(const ModelSpec& model, const LlmRun& asked,
                              const TopologyConfig& cfg) {
  Executed ex;
  const LlmRun run = asked.auto_residual
                         ? choose_residual(model, asked, cfg, &ex.residual_choice, &ex.step_model)
                         : asked;
  ex.prefill = run.prefill;
  ex.plan.push_back({run, std::make_unique<TpMapping>(model, run, cfg)});
  const TpMapping& map = *ex.plan.front().map;
  ex.fits = fits_with(model, run, model.layers, cfg);
  ex.bound = step_bound(map, model, run, cfg);
  ex.mapping = map.describe();
  ex.ranks = map.ranks().size();
  ex.ranks_per_group = map.ranks_per_group();
  ex.micro_rows = {{0, run.batch}};
  ex.title = ", mapping tp over " + std::to_string(ex.ranks) + " PEs, " + map.residual_name() +
             " residual" + (ex.residual_choice.empty() ? "" : " (auto)");
  return ex;
}

Executed plan_pipeline(const ModelSpec& model, const LlmRun& run, const BenchParams& p,
                       const TopologyConfig& cfg) {
  Executed ex;
  ex.prefill = run.prefill;
  const long long stages = p.integer_within("stages", 1 << 12);
  const long long micro = p.integer_within("micro_batches", 1 << 16);
  const unsigned S = stages > 0 ? static_cast<unsigned>(stages) : cfg.system.n_sips;
  const unsigned W = run.ranks > 0 ? run.ranks : cfg.total_pes();
  if (stages < 0 || micro < 0) throw UsageError("llm: stages and micro_batches must be >= 0");
  if (W > cfg.total_pes() || W % S != 0 || W / S == 0)
    throw UsageError("llm: mapping pp cuts " + std::to_string(W) + " PEs into " +
                     std::to_string(S) + " equal stages: use --param stages=N with N dividing " +
                     "the PEs (" + std::to_string(cfg.total_pes()) + " on " + cfg.name + ")");
  if (run.layers < S)
    throw UsageError("llm: mapping pp gives each of " + std::to_string(S) +
                     " stages a layer at least; " + std::to_string(run.layers) +
                     " layers do not go round (use --param layers=N with N >= stages)");
  ex.micro = micro > 0 ? micro : std::min<int64_t>(run.batch, S);
  if (ex.micro > run.batch)
    throw UsageError("llm: --param micro_batches=" + std::to_string(ex.micro) +
                     " is more than the batch of " + std::to_string(run.batch));
  for (int64_t k = 0; k < ex.micro; ++k)
    ex.micro_rows.push_back(even_slice(run.batch, ex.micro, k));
  nlohmann::json stage_json = nlohmann::json::array();
  std::vector<std::vector<StepBound>> bounds;
  for (unsigned s = 0; s < S; ++s) {
    const fw::Slice layers = even_slice(run.layers, S, s);
    LlmRun r = run;
    r.ranks = W / S;
    r.first_pe = s * (W / S);
    r.layers = layers.count;
    r.first_layer = layers.first;
    r.has_head = s + 1 == S;
    ex.plan.push_back({r, std::make_unique<TpMapping>(model, r, cfg)});
    const TpMapping& map = *ex.plan.back().map;
    // Would the stage's share of the whole model fit?
    if (ex.fits == "yes") ex.fits = fits_with(model, r, even_slice(model.layers, S, s).count, cfg);
    std::vector<StepBound> per_micro;
    for (const fw::Slice& m : ex.micro_rows) {
      LlmRun rm = r;
      rm.batch = m.count;
      per_micro.push_back(step_bound(map, model, rm, cfg));
    }
    bounds.push_back(per_micro);
    nlohmann::json j = map.describe();
    j["layers"] = {{"first", layers.first}, {"count", layers.count}};
    stage_json.push_back(j);
    ex.ranks += map.ranks().size();
    ex.ranks_per_group = map.ranks_per_group();
  }
  ex.bound = pipeline_bound(bounds);
  ex.mapping = {{"name", "pp"},
                {"stages", S},
                {"micro_batches", ex.micro},
                {"stage_handoff",
                 "the residual stream of a micro-batch, first rank to first rank, then a "
                 "binomial-tree broadcast in the stage"},
                {"stage", stage_json}};
  ex.title = ", mapping pp: " + std::to_string(S) + " stages of " + std::to_string(W / S) +
             " PEs, " + std::to_string(ex.micro) + " micro-batches";
  return ex;
}

// The step's model phase by phase beside rank 0's time in each phase and
// the time each phase added to the step.
SummaryTable step_model_table(const LlmStepModel& sm, const std::map<std::string, double>& by_phase,
                              const std::map<std::string, double>& critical) {
  SummaryTable pm{
      "the step's model by phase, every layer summed: rank 0's time in each phase, "
      "the time the phase added to the step (its latest end over every rank, less "
      "the previous phase's), and the model (the phase on its slowest rank)",
      {"phase", "rank 0 ns", "step ns", "model ns", "step/model", "model bound by"},
      {}};
  auto at = [](const std::map<std::string, double>& m, const std::string& k) {
    const auto it = m.find(k);
    return it == m.end() ? 0.0 : it->second;
  };
  auto row = [&](const LlmStepModel::Phase& ph) {
    const double crit = at(critical, ph.name), mod = sm.phase_ns(ph.name);
    pm.rows.push_back({ph.name, fmt(at(by_phase, ph.name), 0), fmt(crit, 0), fmt(mod, 0),
                       ratio(crit, mod), ph.how});
  };
  for (const auto& ph : sm.layer) row(ph);
  for (const auto& ph : sm.head) row(ph);
  pm.rows.push_back({"ring opening", "-", "-", fmt(sm.open_ns, 0), "-", "ipcq_open grants"});
  return pm;
}

// Every rank records the same phases in the same order: the k-th record's
// latest end over the ranks, less the previous one's, is the time that phase
// added to the step's critical path (summed by phase over the layers).
// With `per_layer`, also each phase's share in each layer (`layers` long).
std::map<std::string, double> critical_by_phase(
    const std::vector<std::vector<fw::PhaseRecord>>& every, double t0,
    std::map<std::string, std::vector<double>>* per_layer = nullptr, size_t layers = 0) {
  std::map<std::string, double> out;
  double prev = t0;
  for (size_t k = 0; !every.empty() && k < every[0].size(); ++k) {
    double end = 0;
    for (const auto& rank : every) end = std::max(end, rank.at(k).end_ns);
    const fw::PhaseRecord& r = every[0][k];
    out[r.phase] += std::max(0.0, end - prev);
    if (per_layer && r.layer >= 0) {
      std::vector<double>& v = (*per_layer)[r.phase];
      v.resize(layers, 0.0);
      v.at(static_cast<size_t>(r.layer)) += std::max(0.0, end - prev);
    }
    prev = std::max(prev, end);
  }
  return out;
}

// A tensor-parallel decode step's per-phase model beside the measurement: a
// row of the summary `t`, the metrics, and the table by phase.
std::optional<SummaryTable> add_step_model(BenchResult& res, SummaryTable& t, const Executed& ex,
                                           const LlmRun& run, const TopologyConfig& cfg,
                                           const std::map<std::string, double>& by_phase) {
  nlohmann::json& metrics = res.metrics;
  const bool pp = ex.plan.size() > 1 || ex.micro > 1;
  std::vector<LlmStage> stages;
  for (const Executed::Stage& st : ex.plan) stages.push_back({st.map.get(), st.run});
  std::vector<int64_t> rows;
  for (const fw::Slice& m : ex.micro_rows) rows.push_back(m.count);
  const LlmStepModel sm = pp              ? llm_pipeline_decode_model(stages, rows, cfg)
                          : ex.step_model ? *ex.step_model
                                          : llm_decode_model(*ex.plan.front().map, run, cfg);
  const double r = ex.latency / sm.total_ns;
  t.rows.insert(t.rows.begin() + 2, {"latency per token: per-phase model (ns)", fmt(ex.latency, 0),
                                     fmt(sm.total_ns, 0), ratio(ex.latency, sm.total_ns)});
  metrics["step_model"] = sm.to_json();
  metrics["latency_over_model"] = r;
  const std::string gap = llm_model_gap(sm, r);
  if (!gap.empty()) metrics["model_gap"] = gap;
  nlohmann::json& pt = res.points.back();
  pt["model_ns"] = sm.total_ns;
  pt["latency_over_model"] = r;
  if (!gap.empty()) pt["model_gap"] = gap;
  if (pp) return std::nullopt;
  // The QKV gather's row: beside the time it added to the step, the step
  // model's phase (the group's all-reduce as the step runs it: its rings
  // already open, behind the QKV GEMM), not the bare all-reduce.
  const double gather_model = sm.phase_ns(fw::phase::kQkvGather) / static_cast<double>(run.layers);
  if (gather_model > 0) {
    const double measured = metrics.at("qkv_gather_measured_ns").get<double>();
    metrics["qkv_gather_model_ns"] = gather_model;
    metrics["qkv_gather_over_model"] = measured / gather_model;
    for (std::vector<std::string>& row : t.rows)
      if (row.front() == kQkvGatherRow) {
        row[2] = fmt(gather_model, 0);
        row[3] = ratio(measured, gather_model);
      }
  }
  nlohmann::json crit = nlohmann::json::object();
  for (const auto& [k, v] : ex.critical) crit[k] = v;
  metrics["phases_critical_ns"] = crit;
  return step_model_table(sm, by_phase, ex.critical);
}

// The --csv tables beside the point (BenchResult::csv_tables): one row per
// phase (rank 0's time in it, the time it added to the step, the step
// model's) and one per op class, from the result's metrics.
void add_csv_tables(BenchResult& res) {
  const nlohmann::json& m = res.metrics;
  const nlohmann::json none = nlohmann::json::object();
  auto find = [&none](const nlohmann::json& j, const char* key) -> const nlohmann::json& {
    return j.is_object() && j.contains(key) ? j.at(key) : none;
  };
  auto at = [](const nlohmann::json& j, const std::string& key) {
    return j.contains(key) ? j.at(key) : nlohmann::json();
  };
  const nlohmann::json& critical = find(m, "phases_critical_ns");
  const nlohmann::json& model = find(find(m, "step_model"), "phases");
  CsvTable phases{
      "phases",
      {"phase", "op_class", "rank0_ns", "step_ns", "model_ns", "step_over_model", "model_bound_by"},
      {}};
  for (const auto& [name, rank0] : find(m, "phases_rank0_ns").items()) {
    const nlohmann::json step = at(critical, name), mod = at(model, name);
    const nlohmann::json mod_ns = mod.is_null() ? mod : mod.at("ns_over_step");
    nlohmann::json over;
    if (step.is_number() && mod_ns.is_number() && mod_ns.get<double>() > 0)
      over = step.get<double>() / mod_ns.get<double>();
    phases.rows.push_back({name, fw::phase_class(name), rank0, step, mod_ns, over,
                           mod.is_null() ? mod : mod.at("bound_by")});
  }
  const nlohmann::json& joules = find(m, "j_per_token_by_op_class");
  const nlohmann::json& class_model = find(find(m, "step_model"), "classes");
  CsvTable classes{"op_classes", {"op_class", "rank0_ns", "model_ns", "j_per_token"}, {}};
  for (const auto& [name, c] : find(m, "op_classes_rank0").items())
    classes.rows.push_back({name, c.at("total_ns"), at(class_model, name), at(joules, name)});
  res.csv_tables.push_back(std::move(phases));
  res.csv_tables.push_back(std::move(classes));
}

// Data mode: the logits against the double-precision reference forward pass.
SummaryTable check_logits(nlohmann::json& metrics, const ModelSpec& model,
                          const ModelWeights& weights, const LlmRun& run,
                          const std::vector<float>& got) {
  const NormKernelDef* norm = norm_kernel(run.norm);
  const NormReference* norm_ref = norm ? &norm->reference : nullptr;
  const std::vector<double> ref =
      run.prefill ? reference_logits(model, weights, run.batch, 0, run.prompt, norm_ref)
                  : reference_logits(model, weights, run.batch, run.context, 1, norm_ref);
  double max_err = 0, max_ref = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    max_err = std::max(max_err, std::abs(static_cast<double>(got[i]) - ref[i]));
    max_ref = std::max(max_ref, std::abs(ref[i]));
  }
  const double rel = max_ref > 0 ? max_err / max_ref : max_err;
  metrics["logits_max_abs_err"] = max_err;
  metrics["logits_max_abs_ref"] = max_ref;
  metrics["logits_max_rel_err"] = rel;
  return {"data mode: logits vs the double-precision reference forward pass",
          {"max |err|", "max |ref|", "max rel err"},
          {{fmt(max_err, 6), fmt(max_ref, 4), fmt(rel, 6)}}};
}

// Every rank (numbered across the stages in order) tells `by_phase` as each
// of its phases ends.
void hook_phase_energy(std::vector<std::vector<fw::TransformerStepArgs>>& args,
                       PhaseEnergy& by_phase) {
  size_t g = 0;
  for (auto& stage : args)
    for (fw::TransformerStepArgs& a : stage) {
      a.phase_done = [&by_phase, g](const fw::PhaseRecord& r) { by_phase.phase_done(g, r); };
      ++g;
    }
}

// Places every stage, runs the step on every rank, and reads the result.
// Every additive figure of the platform now, for the layer extension: time,
// dynamic energy by class, the activity counters, and every additive counter
// of stats().
LayerExtension::Figures step_figures(Platform& platform) {
  LayerExtension::Figures f;
  f.emplace_back("time_ns", platform.now_ns());
  const EnergySnapshot e = platform.energy();
  for (unsigned c = 0; c < kNumEnergyClasses; ++c)
    f.emplace_back(std::string("energy_pj.") + to_string(static_cast<EnergyClass>(c)),
                   e.tally.dynamic[c]);
  f.emplace_back("energy_pj", e.tally.dynamic_total_pj());
  const ActivityCounters a = ActivityCounters::take(platform);
  const std::pair<const char*, uint64_t> counters[] = {
      {"ipcq_ops", a.ipcq_ops},
      {"dma_reads", a.dma_reads},
      {"dma_writes", a.dma_writes},
      {"dma_bursts", a.dma_bursts},
      {"link_bytes", a.traffic.link_bytes},
      {"cube_link_bytes", a.traffic.cube_link_bytes},
      {"sip_link_bytes", a.traffic.sip_link_bytes}};
  for (const auto& [name, v] : counters) f.emplace_back(name, static_cast<double>(v));
  LayerExtension::add_additive(platform.stats(), "stats.", f);
  return f;
}

// `ex`'s figures as the whole step's, extended by `ext` (which extended), and
// the whole run's sim_time_ns, stats and energy for the result's "extended".
void apply_extension(LayerExtension& ext, Executed& ex, Platform& platform,
                     const std::map<std::string, std::vector<double>>& critical_per_layer,
                     const std::map<std::string, std::vector<double>>& op_class_pj_per_layer) {
  const double now_ns = platform.now_ns();
  const Extended time = ext.figure("time_ns");
  const double added_ns = ext.added("time_ns");
  ex.simulated_latency = ex.latency;
  ex.latency += added_ns;
  ex.latency_error = time.error;
  auto grow = [&ext](uint64_t& v, const char* name) {
    v += static_cast<uint64_t>(std::llround(std::max(0.0, ext.added(name))));
  };
  grow(ex.act.ipcq_ops, "ipcq_ops");
  grow(ex.act.dma_reads, "dma_reads");
  grow(ex.act.dma_writes, "dma_writes");
  grow(ex.act.dma_bursts, "dma_bursts");
  grow(ex.act.traffic.link_bytes, "link_bytes");
  grow(ex.act.traffic.cube_link_bytes, "cube_link_bytes");
  grow(ex.act.traffic.sip_link_bytes, "sip_link_bytes");
  // Dynamic energy by class extended; static energy is the static power over
  // the extended time.
  const EnergySnapshot e = platform.energy();
  EnergyReport whole = EnergyReport::since_start(e);
  for (unsigned c = 0; c < kNumEnergyClasses; ++c) {
    const double more =
        ext.added(std::string("energy_pj.") + to_string(static_cast<EnergyClass>(c)));
    ex.energy.dynamic_pj[c] += more;
    ex.energy.static_pj[c] = ex.energy.static_pj[c] / ex.simulated_latency * ex.latency;
    whole.dynamic_pj[c] += more;
    whole.static_pj[c] = whole.static_pj[c] / now_ns * (now_ns + added_ns);
  }
  ex.energy.window_ns = ex.latency;
  whole.window_ns = now_ns + added_ns;
  // The op classes' energy from each layer's own phases (PhaseEnergy). A
  // class's share is known no better than the step's energy and time: its
  // error bar is at least theirs, relative.
  const Extended dyn = ext.figure("energy_pj");
  const double floor = std::max(time.error / time.value, dyn.error / dyn.value);
  for (auto& [cls, pj] : ex.pj_by_op_class) {
    const auto it = op_class_pj_per_layer.find(cls);
    if (it == op_class_pj_per_layer.end()) continue;
    Extended e = ext.series(it->second, pj);
    e.error = std::max(e.error, floor * std::abs(e.value));
    ext.report("op_class_pj." + cls, e);
    pj = e.value;
  }
  for (auto& [phase, ns] : ex.critical) {
    const auto it = critical_per_layer.find(phase);
    if (it != critical_per_layer.end()) ns = ext.series(it->second, ns).value;
  }
  nlohmann::json energy = whole.to_json();
  energy["idle_static_pj"] = e.idle_static_mw * (now_ns + added_ns);
  ex.extended = {{"what",
                  "the whole step: the simulated layers and the tail as simulated, the other "
                  "layers extended (metrics.layer_extension)"},
                 {"sim_time_ns", now_ns + added_ns},
                 {"sim_time_error_ns", time.error},
                 {"stats", ext.extend_stats(platform.stats(), "stats.")},
                 {"energy", energy}};
}

void execute(HostRuntime& rt, const ModelSpec& model, Executed& ex, const ModelWeights* data,
             Progress* progress, LayerExtension& ext) {
  Platform& platform = rt.platform();
  struct Rank {
    unsigned stage;
    size_t index;
  };
  std::vector<std::vector<fw::TransformerStepArgs>> args;
  std::map<PeAddr, Rank> where;
  std::vector<PeId> pes;
  for (unsigned s = 0; s < ex.plan.size(); ++s) {
    const Executed::Stage& st = ex.plan[s];
    args.push_back(place_step(rt, *st.map, model, st.run, data));
    for (size_t i = 0; i < st.map->ranks().size(); ++i) {
      const PeAddr& pe = st.map->ranks()[i].pe;
      where[pe] = {s, i};
      pes.push_back({pe.sip, pe.cube, pe.pe});
    }
  }
  const bool pp = ex.plan.size() > 1 || ex.micro > 1;
  // Every rank's energy by the class of its phases; the fabric's by the
  // first rank's (a pipeline's micro-batches copy the hook).
  std::vector<PeAddr> rank_pes;
  for (const Executed::Stage& st : ex.plan)
    for (const RankPlan& rp : st.map->ranks()) rank_pes.push_back(rp.pe);
  PhaseEnergy by_phase(platform, rank_pes);
  hook_phase_energy(args, by_phase);
  int64_t done = 0;
  std::vector<std::vector<fw::PhaseRecord>> phases(ex.plan.size());
  std::vector<fw::PipelineArgs> pipe;
  if (pp) {
    std::vector<PeAddr> roots;
    for (const Executed::Stage& st : ex.plan) roots.push_back(st.map->ranks().front().pe);
    for (unsigned s = 0; s < ex.plan.size(); ++s)
      for (fw::TransformerStepArgs& a : args[s]) {
        fw::PipelineArgs pa;
        pa.prefill = ex.prefill;
        pa.stage = s;
        pa.stages = static_cast<unsigned>(ex.plan.size());
        pa.roots = roots;
        pa.first_layer = static_cast<int>(ex.plan[s].run.first_layer);
        for (const fw::Slice& m : ex.micro_rows) {
          pa.micro.push_back(micro_batch(a, m.first, m.count));
          if (progress && a.rank == 0)
            pa.micro.back().layer_done = [progress, &done](int) { progress->set_done(++done); };
        }
        pipe.push_back(std::move(pa));
      }
  } else if (progress || ext.on()) {
    args[0].front().layer_done = [progress, &ext](int l) {
      ext.layer_done(l);
      if (!progress) return;
      progress->set_total(*ext.limit());
      progress->set_done(l + 1);
    };
    if (ext.on())
      for (fw::TransformerStepArgs& a : args[0]) a.layer_limit = ext.limit();
  }
  const ActivityCounters before = ActivityCounters::take(platform);
  const EnergySnapshot energy_before = platform.energy();
  const double t0 = platform.now_ns();
  by_phase.start();
  ext.set_snapshot([&platform] { return step_figures(platform); });
  ext.start();
  std::vector<size_t> first_of_stage(args.size(), 0);
  for (size_t s = 1; s < args.size(); ++s)
    first_of_stage[s] = first_of_stage[s - 1] + args[s - 1].size();
  // A tensor-parallel step records every rank's phases: where each phase
  // ended on its last rank.
  std::vector<std::vector<fw::PhaseRecord>> every(pp ? 0 : args[0].size());
  rt.launch_on(pes, [&](fw::Tl& tl) {
    const Rank r = where.at(tl.self());
    std::vector<fw::PhaseRecord>* rec = !pp            ? &every[r.index]
                                        : r.index == 0 ? &phases[r.stage]
                                                       : nullptr;
    if (pp)
      fw::pipeline_step(tl, pipe[first_of_stage[r.stage] + r.index], rec);
    else if (ex.prefill)
      fw::prefill_step(tl, args[0][r.index], rec);
    else
      fw::decode_step(tl, args[0][r.index], rec);
  });
  rt.run();
  by_phase.finish();
  ext.finish();
  ex.pj_by_op_class = by_phase.pj_by_class();
  ex.latency = platform.now_ns() - t0;
  std::map<std::string, std::vector<double>> critical_per_layer;
  if (!pp) {
    phases[0] = every[0];
    ex.critical =
        critical_by_phase(every, t0, &critical_per_layer, static_cast<size_t>(ext.layers()));
  }
  ex.act = ActivityCounters::take(platform).since(before);
  const EnergySnapshot energy_after = platform.energy();
  ex.energy = EnergyReport::between(energy_before, energy_after, ex.latency);
  ex.static_mw = energy_after.tally.static_total_mw();
  if (ext.extended())
    apply_extension(ext, ex, platform, critical_per_layer,
                    by_phase.pj_by_class_per_layer(static_cast<size_t>(ext.layers())));
  for (const auto& v : phases) ex.phases.insert(ex.phases.end(), v.begin(), v.end());
  if (data) {
    const Executed::Stage& last = ex.plan.back();
    ex.logits = read_logits(rt, *last.map, args.back(), last.run.batch, model.vocab);
  }
}

// Where the energy of the step goes: J per token by class, with its share.
SummaryTable energy_table(const nlohmann::json& j_by_class, double j_per_token) {
  SummaryTable e{"where the energy goes (the whole platform over the step, per token)",
                 {"class", "per token", "share"},
                 {}};
  for (const auto& [c, v] : j_by_class.items())
    if (v.get<double>() > 0)
      e.rows.push_back(
          {c, energy_text(v.get<double>()), fmt(100 * v.get<double>() / j_per_token, 1) + "%"});
  return e;
}

// Where the time (rank 0's, or each stage's first rank's) and the energy
// (the whole platform's, per token) go, by op class.
SummaryTable time_energy_table(const std::vector<const char*>& classes,
                               const std::function<double(const std::string&)>& total_of,
                               double latency, size_t stages, bool pp,
                               const nlohmann::json& j_by_op_class, double j_per_token) {
  SummaryTable b{std::string("where the time and the energy go (time: ") +
                     (pp ? "each stage's first rank, every layer and micro-batch summed, share "
                           "of the stages' time"
                         : "rank 0, every layer summed") +
                     "; energy: the whole platform per token, each PE's charged to its rank's "
                     "phases, the rest to the first rank's)",
                 {"op class", "ns", "share", "energy per token", "share"},
                 {}};
  const double stage_time = latency * static_cast<double>(stages);
  auto energy_cells = [&](const std::string& c) -> std::pair<std::string, std::string> {
    if (!j_by_op_class.contains(c)) return {"-", "-"};
    const double j = j_by_op_class[c].get<double>();
    return {energy_text(j), fmt(100 * j / j_per_token, 1) + "%"};
  };
  double busy = 0;
  for (const char* c : classes) {
    const auto [ej, es] = energy_cells(c);
    busy += total_of(c);
    b.rows.push_back(
        {c, fmt(total_of(c), 0), fmt(100 * total_of(c) / stage_time, 1) + "%", ej, es});
  }
  if (pp)
    b.rows.push_back({"idle (pipeline fill and drain)", fmt(stage_time - busy, 0),
                      fmt(100 * (stage_time - busy) / stage_time, 1) + "%", "-", "-"});
  const auto [ej, es] = energy_cells("after_last_phase");
  b.rows.push_back({"after a rank's last phase", "-", "-", ej, es});
  return b;
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
      {"layers", "0",
       "layers to simulate (0 = the model's depth; fewer: every figure is labelled as theirs, "
       "beside the whole model's roofline bound)"},
      {"extend", "on",
       "on: simulate layers until their increments settle, then extend the rest by the "
       "settled layers' mean, with an error bar (tensor-parallel steps in timing mode; see "
       "docs/ARCHITECTURE.md, \"Layer extension\") | off: simulate every layer"},
      {"extend_tolerance", "0.005",
       "extend=on: the largest error bar of the extended latency and energy, relative to "
       "them, at which simulating stops"},
      {"mapping", "tp",
       "tp: tensor parallel over the PEs | pp: pipeline stages (one per SIP by default), each "
       "tensor parallel over its PEs, micro-batches flowing through them (see "
       "docs/ARCHITECTURE.md)"},
      {"stages", "0", "pp: pipeline stages, each over an equal run of the PEs (0 = one per SIP)"},
      {"micro_batches", "0",
       "pp: micro-batches the batch is cut into (0 = as many as stages, at most the batch)"},
      {"ranks", "0", "PEs the model is spread over, from sip0.cube0.pe0 on (0 = every PE)"},
      {"tile", "64", "KV positions per attention tile"},
      {"kv_layout", "auto",
       "the KV cache in HBM: tiled (in the GEMM's native k x n blocks, so that each b tile "
       "of the attention's GEMMs is one contiguous run; needs d_head and tile to be "
       "multiples of pe.gemm.tile_k and tile_n) | rowmajor | auto (tiled where it can be)"},
      {"variant", "opt2", "attention loop of every rank: opt1 | opt2 | opt3"},
      {"allreduce", "auto",
       "the all-reduces over every rank: tree (binomial, the whole vector per level) | "
       "hierarchical (ring reduce-scatter in each cube, a tree per segment across cubes, "
       "ring all-gather) | halving (as hierarchical, with recursive halving and doubling "
       "across a power of two of cubes) | auto (halving where the ranks fill a power of "
       "two of whole cubes, hierarchical where they fill whole cubes or lie in one, the "
       "tree otherwise)"},
      {"residual", "auto",
       "the residual stream: replicated (every rank holds it whole, all-reduces into it, "
       "runs every norm and add over all of it) | sharded (sequence parallel: "
       "reduce-scatter, norm and add on each rank's shard, all-gather of the normalised "
       "stream; needs the halving all-reduce; tp only) | auto (a decode step takes the one "
       "its step model prices faster, a prefill sharded; replicated where sharded cannot "
       "run)"},
      {"attn_chunk", "0",
       "sequences whose attention states are reduced together (0 = as many as the TCM holds)"},
      {"norm", kBuiltinNorm,
       "the norm every rank runs (each layer's two and the final one): rmsnorm, or a norm "
       "kernel the program registered (kb::register_norm_kernel); one of its own needs the "
       "replicated residual stream"},
      {"seed", "1", "data mode: seed of the random weights, cache and embeddings"}};
  for (const std::string& f : model_spec_fields())
    p.push_back({kModelPrefix + f, "", "override the model spec's " + f});
  return p;
}

std::string LlmBench::default_topology(const BenchParams& params) const {
  if (params.str("model") == "llama3_70b") return "topologies/llama70b_4sip.yaml";
  return "";
}

namespace {

// Rank 0's phases (pp: each stage's first rank's) by phase, and by op class
// per layer and after the last layer.
struct ClassTally {
  ClassTally(const std::vector<fw::PhaseRecord>& phases, const std::vector<const char*>& classes,
             size_t layers) {
    for (const char* c : classes) per_layer[c].assign(layers, 0.0);
    for (const fw::PhaseRecord& r : phases) {
      const double dt = r.end_ns - r.start_ns;
      by_phase[r.phase] += dt;
      if (r.layer < 0) {
        tail[fw::phase_class(r.phase)] += dt;
      } else {
        per_layer[fw::phase_class(r.phase)][static_cast<size_t>(r.layer)] += dt;
        std::vector<double>& v = phase_per_layer[r.phase];
        v.resize(layers, 0.0);
        v[static_cast<size_t>(r.layer)] += dt;
      }
    }
  }
  // The whole step's figures from the simulated layers' (`ext` extended):
  // every total and phase extended, the per-layer lists cut to the layers
  // simulated.
  void extend(const LayerExtension& ext) {
    for (auto& [c, v] : per_layer) {
      extended_total[c] = ext.series(v, total(c)).value;
      v.resize(static_cast<size_t>(ext.simulated()));
    }
    for (auto& [phase, ns] : by_phase) {
      const auto it = phase_per_layer.find(phase);
      if (it != phase_per_layer.end()) ns = ext.series(it->second, ns).value;
    }
  }
  // Every layer's and the tail's time of op class c.
  double total(const std::string& c) const {
    const auto ext = extended_total.find(c);
    if (ext != extended_total.end()) return ext->second;
    const auto it = tail.find(c);
    double t = it == tail.end() ? 0 : it->second;
    const auto pl = per_layer.find(c);
    if (pl != per_layer.end())
      for (double v : pl->second) t += v;
    return t;
  }
  std::map<std::string, std::vector<double>> per_layer;
  std::map<std::string, double> tail;  // final norm and LM head
  std::map<std::string, double> by_phase;
  std::map<std::string, std::vector<double>> phase_per_layer;
  std::map<std::string, double> extended_total;  // by class, once extended
};

// The step the parameters ask for, checked.
LlmRun run_of(const BenchParams& p, const ModelSpec& model) {
  const std::string phase = p.str("phase");
  if (phase != "decode" && phase != "prefill")
    throw UsageError("llm: --param phase=" + phase + ": expected decode or prefill");
  const std::string mapping = p.str("mapping");
  if (mapping != "tp" && mapping != "pp")
    throw UsageError("llm: --param mapping=" + mapping +
                     ": the mappings are tp (tensor parallel over the PEs) and pp (pipeline "
                     "stages, each tensor parallel over its PEs)");
  const std::string variant = p.str("variant");
  if (variant != "opt1" && variant != "opt2" && variant != "opt3")
    throw UsageError("llm: --param variant=" + variant + ": expected opt1, opt2 or opt3");
  LlmRun run;
  run.prefill = phase == "prefill";
  // A parameter of the other phase or mapping would be recorded and ignored.
  if (run.prefill && p.given("context"))
    throw UsageError(
        "llm: --param context is for phase=decode (the tokens already in the cache); a prefill "
        "starts from an empty cache: give its length as --param prompt");
  if (!run.prefill && p.given("prompt"))
    throw UsageError(
        "llm: --param prompt is for phase=prefill; a decode step's cache length is --param "
        "context (or add --param phase=prefill)");
  if (mapping == "tp")
    for (const char* k : {"stages", "micro_batches"})
      if (p.given(k))
        throw UsageError(std::string("llm: --param ") + k +
                         " is for mapping=pp (pipeline stages); mapping=tp spreads every layer "
                         "over --param ranks (add --param mapping=pp, or leave " +
                         k + " out)");
  const std::string allreduce = p.str("allreduce");
  if (allreduce != "tree" && allreduce != "hierarchical" && allreduce != "halving" &&
      allreduce != "auto")
    throw UsageError("llm: --param allreduce=" + allreduce +
                     ": expected tree, hierarchical, halving or auto");
  run.cube_allreduce = allreduce == "hierarchical";
  run.halving_allreduce = allreduce == "halving";
  run.auto_allreduce = allreduce == "auto";
  const std::string residual = p.str("residual");
  if (residual != "replicated" && residual != "sharded" && residual != "auto")
    throw UsageError("llm: --param residual=" + residual +
                     ": expected replicated, sharded or auto");
  run.sharded_residual = residual == "sharded";
  run.auto_residual = residual == "auto" && mapping == "tp";
  run.norm = p.str("norm");
  try {
    norm_kernel(run.norm);  // a name it knows
  } catch (const UsageError& e) {
    throw UsageError("llm: --param norm=" + run.norm + ": " + e.what());
  }
  if (run.sharded_residual && run.norm != kBuiltinNorm)
    throw UsageError("llm: --param norm=" + run.norm +
                     " runs on whole rows: it needs the replicated residual stream (use "
                     "residual=replicated or auto)");
  if (run.sharded_residual && mapping == "pp")
    throw UsageError(
        "llm: --param residual=sharded is for mapping=tp: a pipeline stage hands the whole "
        "stream to the next (use residual=replicated with mapping=pp)");
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

  return run;
}

// " (N of M layers: not the model's)" when the run simulates fewer layers
// than the model has, as asked (layers=N); "" otherwise.
std::string fewer_layers_label(const LlmRun& run, const ModelSpec& model) {
  if (run.layers >= model.layers) return "";
  return " (" + std::to_string(run.layers) + " of " + std::to_string(model.layers) +
         " layers: not the model's)";
}

// The roofline bound of the whole model's step on this mapping.
double whole_model_bound_ns(const TpMapping& map, const ModelSpec& model, const LlmRun& run,
                            const TopologyConfig& cfg) {
  LlmRun whole = run;
  whole.layers = model.layers;
  return step_bound(map, model, whole, cfg).bound_ns;
}

// LlmRun::kv_tiled from --param kv_layout: tiled where d_head and the tile
// are whole native blocks (a UsageError when asked for where they are not).
bool kv_tiled(const BenchParams& p, const ModelSpec& model, const LlmRun& run,
              const TopologyConfig& cfg) {
  const std::string layout = p.str("kv_layout");
  if (layout != "auto" && layout != "tiled" && layout != "rowmajor")
    throw UsageError("llm: --param kv_layout=" + layout + ": expected tiled, rowmajor or auto");
  const int64_t tk = cfg.pe.gemm.tile_k, tn = cfg.pe.gemm.tile_n;
  const bool fits =
      model.d_head % tk == 0 && model.d_head % tn == 0 && run.tile % tk == 0 && run.tile % tn == 0;
  if (layout == "tiled" && !fits)
    throw UsageError("llm: --param kv_layout=tiled stores K and V in the GEMM's native " +
                     std::to_string(tk) + "x" + std::to_string(tn) + " blocks, so d_head (" +
                     std::to_string(model.d_head) + ") and tile (" + std::to_string(run.tile) +
                     ") must be multiples of " + std::to_string(std::max(tk, tn)) +
                     " (or use --param kv_layout=rowmajor)");
  return layout != "rowmajor" && fits;
}

// The step the parameters ask for, planned (and checked) on `cfg`.
Executed plan_step(const ModelSpec& model, const LlmRun& run, const BenchParams& p,
                   const TopologyConfig& cfg) {
  return p.str("mapping") == "pp" ? plan_pipeline(model, run, p, cfg)
                                  : plan_tensor_parallel(model, run, cfg);
}

// Whether the step the parameters ask for, of `model`, plans on `cfg`.
bool step_plans(const ModelSpec& model, const BenchParams& p, const TopologyConfig& cfg) {
  try {
    LlmRun run = run_of(p, model);
    run.kv_tiled = kv_tiled(p, model, run, cfg);
    plan_step(model, run, p, cfg);
    return true;
  } catch (const UsageError&) {
    return false;
  }
}

// For a model that does not fit HBM (HbmFitError): the largest shipped model
// (topologies/llm/, by parameters) whose step as asked fits `cfg`, or, when
// none does, the shipped topologies that `model` fits.
std::string what_fits(const ModelSpec& model, const BenchParams& p, const TopologyConfig& cfg) {
  std::optional<ModelSpec> best;
  for (const std::string& name : builtin_model_names()) {
    if (name == p.str("model") || name == model.name) continue;
    const ModelSpec m = load_model_spec(name);
    if (step_plans(m, p, cfg) && (!best || m.model_params() > best->model_params())) best = m;
  }
  if (best)
    return "--param model=" + best->name + " fits " + cfg.name +
           " (the largest shipped model that does)";
  std::string topologies;
  for (const std::string& t : embedded_topology_names())
    if (t != cfg.name && step_plans(model, p, load_topology(t)))
      topologies += (topologies.empty() ? "" : ", ") + t;
  return "no shipped model fits " + cfg.name + "; " + model.name + " as asked fits " +
         (topologies.empty() ? "no shipped topology either" : "--topology " + topologies);
}

const char* kv_layout_name(const LlmRun& run) {
  return run.kv_tiled ? "tiled" : "rowmajor";
}

// The layer extension the parameters ask for, and where it cannot be used,
// why (the result says it): the latency and the dynamic energy are gated.
LayerExtension extension_of(const BenchParams& p, const LlmRun& run, const ModelSpec& model,
                            bool pp, bool data_mode) {
  const std::string mode = p.str("extend");
  if (mode != "on" && mode != "off")
    throw UsageError("llm: --param extend=" + mode + ": expected on or off");
  LayerExtension::Options o;
  o.tolerance = p.number("extend_tolerance");
  if (!(o.tolerance >= 0 && o.tolerance < 1))
    throw UsageError("llm: --param extend_tolerance=" + p.str("extend_tolerance") +
                     ": out of range [0, 1) (a relative error bar, e.g. 0.005 for 0.5 %)");
  if (mode == "off" && p.given("extend_tolerance"))
    throw UsageError(
        "llm: --param extend_tolerance is for extend=on; extend=off simulates "
        "every layer");
  LayerExtension ext(o, run.layers, {"time_ns", "energy_pj"});
  if (mode == "off")
    ext.turn_off("extend=off");
  else if (data_mode)
    ext.turn_off("data mode: the logits need every layer");
  else if (pp)
    ext.turn_off("mapping=pp: a pipeline's stages are simulated whole");
  else if (run.layers < model.layers)
    ext.turn_off("layers=" + std::to_string(run.layers) + " asked: that many simulated");
  return ext;
}

// Every figure of the step, computed once: LlmBench::run writes them into
// the metrics, the flat point and the tables.
struct StepFigures {
  double latency = 0;
  double tokens = 0;  // the step produces (decode) or takes in (prefill)
  double tokens_per_s = 0, bound_tokens_per_s = 0, hbm_util = 0;
  int64_t simulated_layers = 0;
  double passes = 0;  // every layer runs once per micro-batch (tp: one)
  // The collectives as the step saw them (what they added to it, over every
  // rank; a pipeline has only its stages' first ranks' times).
  std::map<std::string, double> seen;
  double gather_measured = 0;
  std::vector<StreamCollective> stream;
  double j_per_token = 0, floor_j_per_token = 0;
  std::map<std::string, double> j_by_class, j_by_op_class;  // J per token
  double attn_gather_measured = 0, attn_gather_model = 0;   // prefill
};

StepFigures step_figures(const Executed& ex, const LlmRun& run, const ModelSpec& model,
                         const TopologyConfig& cfg, const ClassTally& tally,
                         const LayerExtension& ext) {
  StepFigures f;
  const StepBound& bound = ex.bound;
  f.latency = ex.latency;
  f.tokens = static_cast<double>(stream_rows(run));
  f.tokens_per_s = f.tokens / f.latency * 1e9;
  f.bound_tokens_per_s = f.tokens / bound.bound_ns * 1e9;
  const auto W = static_cast<double>(ex.ranks);
  f.hbm_util =
      static_cast<double>(bound.total_hbm_bytes) / (f.latency * W * cfg.pe_hbm_bandwidth_gbps());
  f.simulated_layers = ext.extended() ? ext.simulated() : run.layers;
  f.passes = static_cast<double>(run.layers * ex.micro);
  f.seen = ex.critical.empty() ? tally.by_phase : ex.critical;
  f.gather_measured = f.seen[fw::phase::kQkvGather] / f.passes;
  f.stream = stream_collectives(f.seen, f.passes, run, model, bound);
  // Energy per token, and its floor: every rank's weights and KV block read
  // once from HBM, and the platform's static power over the bound's time.
  f.j_per_token = ex.energy.total_pj() * 1e-12 / f.tokens;
  f.floor_j_per_token =
      (static_cast<double>(bound.total_hbm_bytes) * cfg.pe.hbm.energy.read_pj_per_byte +
       ex.static_mw * bound.bound_ns) *
      1e-12 / f.tokens;
  for (unsigned c = 0; c < kNumEnergyClasses; ++c)
    f.j_by_class[to_string(static_cast<EnergyClass>(c))] =
        ex.energy.dynamic_pj[c] * 1e-12 / f.tokens;
  f.j_by_class["static"] = ex.energy.static_total_pj() * 1e-12 / f.tokens;
  // The same energy by the op class of the phases that spent it.
  for (const auto& [cls, pj] : ex.pj_by_op_class) f.j_by_op_class[cls] = pj * 1e-12 / f.tokens;
  if (run.prefill) {
    f.attn_gather_measured = f.seen[fw::phase::kAttnGather] / f.passes;
    const std::vector<PeAddr>& order = ex.plan.front().map->order();
    f.attn_gather_model =
        list_allreduce_model(
            cfg, std::vector<PeAddr>(order.begin(), order.begin() + ex.ranks_per_group),
            RingSpace::kTcm,
            static_cast<uint64_t>(stream_rows(run) * model.group() * model.d_head) * 4)
            .total_ns;
  }
  return f;
}

nlohmann::json metrics_of(const StepFigures& f, const std::string& phase, const Executed& ex,
                          const LlmRun& run, const ModelSpec& model, const LayerExtension& ext,
                          const ClassTally& tally, const std::vector<const char*>& classes) {
  const StepBound& bound = ex.bound;
  const ActivityCounters& act = ex.act;
  nlohmann::json m = {
      {"model", model.name},
      {"model_source", model.source},
      {"phase", phase},
      {"allreduce", ex.plan.front().map->allreduce_name()},
      {"batch", run.batch},
      {"context", run.context},
      {"layers_simulated", f.simulated_layers},
      {"layers_extended", run.layers - f.simulated_layers},
      {"model_layers", model.layers},
      {"all_layers_simulated", f.simulated_layers == model.layers},
      {"layer_extension", ext.to_json()},
      {"all_layers_fit", ex.fits},
      {"mapping", ex.mapping},
      {"kv_layout", kv_layout_name(run)},
      {"tokens_per_s", f.tokens_per_s},
      {"roofline", bound.to_json()},
      {"roofline_tokens_per_s", f.bound_tokens_per_s},
      {"latency_over_bound", f.latency / bound.bound_ns},
      {"hbm_util", f.hbm_util},
      {"residual", run.sharded_residual ? "sharded" : "replicated"},
      {"residual_choice", ex.residual_choice.empty() ? "as asked" : ex.residual_choice},
      {"qkv_gather_measured_ns", f.gather_measured},
      {"qkv_gather_over_model", f.gather_measured / bound.qkv_gather_model_ns},
      {"link_bytes", act.traffic.link_bytes},
      {"cube_link_bytes", act.traffic.cube_link_bytes},
      {"sip_link_bytes", act.traffic.sip_link_bytes},
      {"ipcq_ops", act.ipcq_ops},
      {"dma_ops", act.dma_ops()},
      {"j_per_token", f.j_per_token},
      {"energy_floor_j_per_token", f.floor_j_per_token},
      {"j_per_token_over_floor", f.j_per_token / f.floor_j_per_token},
      {"j_per_token_by_class", nlohmann::json(f.j_by_class)},
      {"j_per_token_by_op_class", nlohmann::json(f.j_by_op_class)},
      {"average_power_w", ex.energy.average_mw() * 1e-3},
      {"energy", ex.energy.to_json()}};
  m[run.prefill ? "ttft_ns" : "latency_per_token_ns"] = f.latency;
  if (ext.extended()) {
    m["latency_error_ns"] = ex.latency_error;
    m["simulated_latency_ns"] = ex.simulated_latency;
  }
  for (const StreamCollective& c : f.stream) {
    m[c.key + "_measured_ns"] = c.measured;
    m[c.key + "_over_model"] = c.measured / c.model;
  }
  if (run.prefill) {
    m["prompt"] = run.prompt;
    m["attn_gather_measured_ns"] = f.attn_gather_measured;
    m["attn_gather_over_model"] = f.attn_gather_measured / f.attn_gather_model;
  }
  nlohmann::json class_json = nlohmann::json::object();
  for (const char* c : classes)
    class_json[c] = {{"total_ns", tally.total(c)}, {"per_layer_ns", tally.per_layer.at(c)}};
  m["op_classes_rank0"] = class_json;
  nlohmann::json phase_json = nlohmann::json::object();
  for (const auto& [k, v] : tally.by_phase) phase_json[k] = v;
  m["phases_rank0_ns"] = phase_json;
  return m;
}

// One flat point: what sweeps tabulate and scripts/plot_llm.py draws. The
// figures it shares with the metrics are copied from them.
nlohmann::json point_of(const StepFigures& f, const nlohmann::json& metrics, const Executed& ex,
                        const LlmRun& run, const ClassTally& tally,
                        const std::vector<const char*>& classes) {
  nlohmann::json pt = {{"layers", run.layers},
                       {"ranks", ex.ranks},
                       {"latency_ns", f.latency},
                       {"latency_error_ns", ex.latency_error},
                       {"bound_ns", ex.bound.bound_ns}};
  for (const char* k : {"model", "batch", "context", "layers_simulated", "latency_over_bound",
                        "tokens_per_s", "roofline_tokens_per_s", "hbm_util", "residual",
                        "j_per_token", "energy_floor_j_per_token", "j_per_token_by_op_class"})
    pt[k] = metrics.at(k);
  // allreduce_ns, or reduce_scatter_ns and norm_gather_ns
  for (const StreamCollective& c : f.stream) {
    pt[c.key + "_ns"] = c.measured;
    pt[c.key + "_model_ns"] = c.model;
  }
  for (const char* c : classes)
    pt[std::string(c) + "_ns_per_layer"] = tally.total(c) / static_cast<double>(run.layers);
  if (run.prefill) {
    pt["phase"] = metrics.at("phase");
    pt["prompt"] = run.prompt;
  }
  return pt;
}

}  // namespace

// The one flat point run() makes: its stream collectives' and op classes'
// fields by their keys, a prefill's phase and prompt, a decode step's
// model (add_step_model).
std::vector<std::string> LlmBench::point_fields() const {
  std::vector<std::string> f = {"model",
                                "batch",
                                "context",
                                "layers",
                                "layers_simulated",
                                "ranks",
                                "latency_ns",
                                "latency_error_ns",
                                "bound_ns",
                                "latency_over_bound",
                                "tokens_per_s",
                                "roofline_tokens_per_s",
                                "hbm_util",
                                "residual",
                                "j_per_token",
                                "energy_floor_j_per_token",
                                "j_per_token_by_op_class"};
  for (const std::string key : {kStreamAllreduce, kStreamReduceScatter, kStreamNormGather})
    f.insert(f.end(), {key + "_ns", key + "_model_ns"});
  std::vector<const char*> classes(std::begin(kClasses), std::end(kClasses));
  classes.push_back(kPipelineClass);
  for (const char* c : classes) f.push_back(std::string(c) + "_ns_per_layer");
  return with_fields(
      f, {"phase", "prompt", "model_ns", "latency_over_model", "model_gap", PointWindows::kField});
}

std::vector<std::string> LlmBench::metric_fields() const {
  std::vector<std::string> f = {
      "model", "model_source", "phase", "allreduce", "batch", "context", "layers_simulated",
      "layers_extended", "model_layers", "all_layers_simulated", "layer_extension",
      "all_layers_fit", "mapping", "kv_layout", "tokens_per_s", "roofline", "roofline_tokens_per_s",
      "latency_over_bound", "hbm_util", "residual", "residual_choice", "qkv_gather_measured_ns",
      "qkv_gather_over_model", "link_bytes", "cube_link_bytes", "sip_link_bytes", "ipcq_ops",
      "dma_ops", "j_per_token", "energy_floor_j_per_token", "j_per_token_over_floor",
      "j_per_token_by_class", "j_per_token_by_op_class", "average_power_w", "energy", "ttft_ns",
      "latency_per_token_ns", "latency_error_ns", "simulated_latency_ns", "prompt",
      "attn_gather_measured_ns", "attn_gather_over_model", "op_classes_rank0", "phases_rank0_ns",
      "whole_model_roofline_tokens_per_s",
      // add_step_model's, check_logits'
      "step_model", "latency_over_model", "model_gap", "qkv_gather_model_ns", "phases_critical_ns",
      "logits_max_abs_err", "logits_max_abs_ref", "logits_max_rel_err"};
  for (const std::string key : {kStreamAllreduce, kStreamReduceScatter, kStreamNormGather})
    f.insert(f.end(), {key + "_measured_ns", key + "_over_model"});
  return f;
}

BenchResult LlmBench::run(BenchContext& ctx) {
  const BenchParams& p = ctx.params;
  const ModelSpec model = model_of(p);
  const std::string phase = p.str("phase");
  const std::string mapping = p.str("mapping");
  LlmRun run = run_of(p, model);
  Platform& platform = ctx.platform;
  run.kv_tiled = kv_tiled(p, model, run, platform.config());
  HostRuntime rt(platform);
  PointWindows windows(platform);
  std::optional<ModelWeights> weights;
  const bool pp = mapping == "pp";
  // Built (and checked) before anything is written.
  Executed ex = [&] {
    try {
      return plan_step(model, run, p, platform.config());
    } catch (const HbmFitError& e) {
      throw UsageError(std::string(e.what()) + "; " + what_fits(model, p, platform.config()));
    }
  }();
  if (!pp) run.sharded_residual = ex.plan.front().run.sharded_residual;  // residual=auto's choice
  if (pp && p.str("residual") == "auto")
    ex.residual_choice = "replicated: a pipeline stage hands the whole stream to the next";
  if (ctx.data_mode)
    weights = random_model(model, run.layers, run.batch, run.prefill ? 0 : run.context,
                           static_cast<uint64_t>(p.integer("seed")), run.prefill ? run.prompt : 1);
  LayerExtension ext = extension_of(p, run, model, pp, ctx.data_mode);
  Progress progress("llm", "layer", run.layers * ex.micro, ctx.quiet);
  execute(rt, model, ex, weights ? &*weights : nullptr, ctx.quiet ? nullptr : &progress, ext);
  const double latency = ex.latency;
  const StepBound& bound = ex.bound;
  const TopologyConfig& cfg = platform.config();
  std::vector<const char*> classes(std::begin(kClasses), std::end(kClasses));
  if (pp) classes.push_back(kPipelineClass);

  // The per-layer op-class breakdown, as rank 0 (pp: each stage's first rank) saw it.
  ClassTally tally(ex.phases, classes, static_cast<size_t>(run.layers));
  if (ext.extended()) tally.extend(ext);
  std::map<std::string, double>& by_phase = tally.by_phase;
  auto total_of = [&tally](const std::string& c) { return tally.total(c); };

  const StepFigures f = step_figures(ex, run, model, cfg, tally, ext);
  BenchResult res;
  res.metrics = metrics_of(f, phase, ex, run, model, ext, tally, classes);
  if (ext.extended()) res.extended = ex.extended;
  nlohmann::json pt = point_of(f, res.metrics, ex, run, tally, classes);
  windows.stamp(pt);
  res.points.push_back(pt);

  SummaryTable t{"llm " + phase + ": " + model.name + " (" + std::to_string(run.layers) + " of " +
                     std::to_string(model.layers) + " layers" +
                     (run.layers == model.layers ? "" : ", FEWER LAYERS AS ASKED") +
                     (ext.extended() ? ": " + ext.summary() : "") + "), batch " +
                     std::to_string(run.batch) +
                     (run.prefill ? ", prompt " + std::to_string(run.prompt)
                                  : ", context " + std::to_string(run.context)) +
                     ex.title + (run.norm == kBuiltinNorm ? "" : ", norm " + run.norm),
                 {"figure", "measured", "bound / model", "ratio"},
                 {}};
  // Fewer layers than the model's, as asked: every figure is of those
  // layers, which its label says; beside them, the whole model's bound.
  const std::string of_layers = fewer_layers_label(run, model);
  t.rows.push_back(
      {(run.prefill ? "time to first token (ns)" : "latency per token (ns)") + of_layers,
       fmt(latency, 0) + (ext.extended() ? " ± " + fmt(ex.latency_error, 0) : ""),
       fmt(bound.bound_ns, 0), ratio(latency, bound.bound_ns)});
  t.rows.push_back({(run.prefill ? "prompt tokens/s" : "tokens/s") + of_layers,
                    fmt(f.tokens_per_s, 1), fmt(f.bound_tokens_per_s, 1),
                    ratio(f.tokens_per_s, f.bound_tokens_per_s)});
  if (!of_layers.empty() && ex.plan.size() == 1) {
    const double whole = whole_model_bound_ns(*ex.plan.front().map, model, run, cfg);
    res.metrics["whole_model_roofline_tokens_per_s"] = f.tokens / whole * 1e9;
    t.rows.push_back({"tokens/s of the whole model (" + std::to_string(model.layers) +
                          " layers), its bound only (simulate it: no --param layers)",
                      "-", fmt(f.tokens / whole * 1e9, 1), "-"});
  }
  t.rows.push_back({"HBM time of busiest rank (ns)", "-", fmt(bound.hbm_ns, 0), "-"});
  t.rows.push_back({"GEMM flops of busiest rank at peak (ns)", "-", fmt(bound.compute_ns, 0), "-"});
  t.rows.push_back(
      {"GEMM native tiles of busiest rank (ns)", "-", fmt(bound.gemm_tile_ns, 0), "-"});
  for (const StreamCollective& c : f.stream)
    t.rows.push_back({c.label, fmt(c.measured, 0), fmt(c.model, 0), ratio(c.measured, c.model)});
  t.rows.push_back({kQkvGatherRow, fmt(f.gather_measured, 0), fmt(bound.qkv_gather_model_ns, 0),
                    ratio(f.gather_measured, bound.qkv_gather_model_ns)});
  if (run.prefill)
    t.rows.push_back({"attention gather in a group (ns, mean)", fmt(f.attn_gather_measured, 0),
                      fmt(f.attn_gather_model, 0),
                      ratio(f.attn_gather_measured, f.attn_gather_model)});
  t.rows.push_back({"HBM bandwidth utilisation", fmt(100 * f.hbm_util, 1) + "%", "100%", "-"});
  t.rows.push_back({"energy per token (floor: HBM reads + static power over the bound)",
                    energy_text(f.j_per_token), energy_text(f.floor_j_per_token),
                    ratio(f.j_per_token, f.floor_j_per_token)});
  // The energy above is the whole platform's (every cube and PE, ranks or
  // idle) over the step's time (ex.energy's window): say so.
  const unsigned n_cubes = cfg.system.n_sips * cfg.cubes_per_sip();
  t.rows.push_back(
      {"average power (W): whole platform (" +
           (cfg.system.n_sips > 1 ? std::to_string(cfg.system.n_sips) + " SIPs, " : "") +
           std::to_string(n_cubes) + (n_cubes == 1 ? " cube, " : " cubes, ") +
           std::to_string(cfg.total_pes()) + " PEs) over the step" + of_layers,
       fmt(ex.energy.average_mw() * 1e-3, 1), "-", "-"});
  if (ex.fits != "yes") t.title += "\n  (the whole model would not fit: " + ex.fits + ")";
  std::optional<SummaryTable> by_phase_table;
  if (!run.prefill) by_phase_table = add_step_model(res, t, ex, run, cfg, by_phase);
  res.tables.push_back(t);
  if (by_phase_table) res.tables.push_back(*by_phase_table);

  res.tables.push_back(time_energy_table(classes, total_of, latency, ex.plan.size(), pp,
                                         nlohmann::json(f.j_by_op_class), f.j_per_token));

  res.tables.push_back(energy_table(nlohmann::json(f.j_by_class), f.j_per_token));

  if (weights) res.tables.push_back(check_logits(res.metrics, model, *weights, run, ex.logits));
  add_csv_tables(res);
  return res;
}

}  // namespace kb
