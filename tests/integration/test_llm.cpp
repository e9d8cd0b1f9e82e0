// The llm bench end to end, through the kernbench binary: a small ragged
// model's logits against the double-precision reference, the roofline bound
// never beaten, determinism, and the errors of impossible models and mappings.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/cli_run.h"
#include "tests/support/test_support.h"

namespace kb {
namespace {

using test::contains;
using test::run_kernbench;
using test::TempDir;

using test::kTiny;

// A model with no power of two in it: 3 layers, hidden 120, 6 heads over 3
// KV heads of 20 dimensions, FFN 200, vocabulary 250; on 6 PEs of tiny.yaml.
std::vector<std::string> small_model() {
  return {"-p", "model=llama3_8b", "-p", "model.layers=3",   "-p", "model.hidden=120",
          "-p", "model.heads=6",   "-p", "model.kv_heads=3", "-p", "model.d_head=20",
          "-p", "model.ffn=200",   "-p", "model.vocab=250",  "-p", "ranks=6"};
}

std::vector<std::string> args(const std::vector<std::string>& extra,
                              const std::string& topo = kTiny) {
  std::vector<std::string> a = {"-t", topo, "-b", "llm", "-q"};
  // The small model's fields, but those `extra` sets itself.
  auto key = [](const std::string& kv) { return kv.substr(0, kv.find('=')); };
  const std::vector<std::string> base = small_model();
  for (size_t i = 0; i + 1 < base.size(); i += 2) {
    bool overridden = false;
    for (const std::string& e : extra) overridden = overridden || key(e) == key(base[i + 1]);
    if (!overridden) a.insert(a.end(), {base[i], base[i + 1]});
  }
  for (const std::string& s : extra) a.push_back(s);
  return a;
}

// tiny.yaml's 8 PEs as 4 cubes of 2, two KV heads (groups of 4) and a hidden
// size of 132 that no power of two divides: the halving all-reduce and the
// sharded stream run, and their pieces are uneven.
std::vector<std::string> eight_ranks(std::vector<std::string> extra) {
  extra.insert(extra.begin(), {"-p", "model.kv_heads=2", "-p", "model.hidden=132", "-p",
                               "model.d_head=22", "-p", "ranks=8"});
  return extra;
}

nlohmann::json run_json(std::vector<std::string> a, const TempDir& tmp, const std::string& name) {
  a.emplace_back("--json");
  a.emplace_back(tmp / name);
  const test::RunResult r = run_kernbench(a, tmp);
  EXPECT_EQ(r.exit_code, 0) << test::describe(r);
  if (r.exit_code != 0) return {};
  return nlohmann::json::parse(test::read_text(tmp / name));
}

// The length parameter of `phase`: a prompt of 23 tokens to prefill, or a
// cache of 37 to decode after (each phase refuses the other's).
std::string length_of(const std::string& phase) {
  return phase == "prefill" ? "prompt=23" : "context=37";
}

// tiny.yaml on two SIPs: 16 PEs, a pipeline stage of 6 on each side.
std::vector<std::string> two_sips(std::vector<std::string> extra) {
  extra.insert(extra.end(), {"--set", "system.n_sips=2", "-p", "ranks=12"});
  return args(extra);
}

TEST(LlmDecode, SmallRaggedModelMatchesTheReferenceAndTheMappingDoesNotChangeIt) {
  TempDir tmp;
  std::vector<std::vector<float>> logits;
  // ranks 3 (a KV head per PE) and 6 (two PEs per KV head, sequence parallel).
  for (const std::string ranks : {"3", "6"}) {
    const nlohmann::json j = run_json(args({"--data", "-p", "batch=3", "-p", "context=37", "-p",
                                            "tile=16", "-p", "ranks=" + ranks}),
                                      tmp, "r" + ranks + ".json");
    ASSERT_FALSE(j.is_null());
    const double rel = j["metrics"]["logits_max_rel_err"].get<double>();
    std::cout << "ranks=" << ranks << " max rel err " << rel << "\n";
    EXPECT_LE(rel, 1e-2) << j["metrics"].dump();
    EXPECT_GT(j["metrics"]["logits_max_abs_ref"].get<double>(), 0.1);  // not a zero output
    EXPECT_TRUE(j["metrics"]["all_layers_simulated"].get<bool>());
  }
}

TEST(LlmDecode, AttentionInChunksOfSequencesGivesTheSameLogits) {
  TempDir tmp;
  std::vector<double> err;
  for (const std::string chunk : {"0", "2"}) {
    const nlohmann::json j =
        run_json(args({"--data", "-p", "batch=5", "-p", "context=37", "-p", "attn_chunk=" + chunk}),
                 tmp, "k" + chunk + ".json");
    ASSERT_FALSE(j.is_null());
    EXPECT_EQ(j["metrics"]["mapping"]["attention_chunk_sequences"], chunk == "0" ? 5 : 2);
    err.push_back(j["metrics"]["logits_max_abs_err"].get<double>());
  }
  EXPECT_EQ(err[0], err[1]);  // the same arithmetic, reduced in two rounds more
}

TEST(LlmDecode, AGroupRootWithSeveralChildrenHoldsEveryReceivedStateInTcm) {
  TempDir tmp;
  // Groups of 4 ranks: the first rank receives a packed state from each of
  // two tree levels, each into its own buffer. 32 sequences of 8 query rows
  // of 128 dimensions: the attention chunk must leave room for all three.
  const nlohmann::json j = run_json({"-t", kTiny,
                                     "-b", "llm",
                                     "-q", "--data",
                                     "-p", "model=llama3_8b",
                                     "-p", "model.layers=1",
                                     "-p", "model.hidden=256",
                                     "-p", "model.heads=16",
                                     "-p", "model.kv_heads=2",
                                     "-p", "model.d_head=128",
                                     "-p", "model.ffn=512",
                                     "-p", "model.vocab=512",
                                     "-p", "ranks=8",
                                     "-p", "context=100",
                                     "-p", "batch=32"},
                                    tmp, "root.json");
  ASSERT_FALSE(j.is_null());
  EXPECT_LT(j["metrics"]["mapping"]["attention_chunk_sequences"].get<int>(), 32);
  EXPECT_LE(j["metrics"]["logits_max_rel_err"].get<double>(), 1e-2);
}

// A batch whose residual stream is too big for TCM is all-reduced from HBM
// through per-peer TCM staging. Rank 0 is the root of a 3-level tree (three
// peers, 96 KiB of staging each with 1536-byte slots): that staging must be
// released when the all-reduce ends, or the next layer phase (the FFN norm)
// finds the arena full. At 70B shape (8 KV heads x 64 ranks, batch 32) this
// is what rank 0 of 512 hit with 9 peers of 32 KiB.
TEST(LlmDecode, ReduceStagingLivesOnlyAsLongAsItsAllReduce) {
  TempDir tmp;
  const nlohmann::json j = run_json({"-t",
                                     kTiny,
                                     "-b",
                                     "llm",
                                     "-q",
                                     "-p",
                                     "layers=1",
                                     "-p",
                                     "batch=32",
                                     "-p",
                                     "context=1023",
                                     "-p",
                                     "model.heads=8",
                                     "-p",
                                     "model.kv_heads=1",
                                     "-p",
                                     "model.ffn=448",
                                     "-p",
                                     "model.vocab=64",
                                     "-p",
                                     "ranks=8",
                                     "-p",
                                     "residual=replicated",
                                     "--set",
                                     "pe.ipcq.slot_bytes=1536"},
                                    tmp, "staging.json");
  ASSERT_FALSE(j.is_null());
  EXPECT_EQ(j["metrics"]["mapping"]["tcm"]["partial_sums"], "hbm");
  EXPECT_GT(j["metrics"]["latency_per_token_ns"].get<double>(), 0.0);
}

// Two layers of hidden 1024 over 8 ranks of tiny.yaml in data mode, with
// `more` arguments.
nlohmann::json wide_model(const std::vector<std::string>& more, const TempDir& tmp,
                          const std::string& name) {
  std::vector<std::string> a = {"-t", kTiny,
                                "-b", "llm",
                                "-q", "--data",
                                "-p", "model=llama3_8b",
                                "-p", "model.layers=2",
                                "-p", "model.hidden=1024",
                                "-p", "model.heads=8",
                                "-p", "model.kv_heads=2",
                                "-p", "model.d_head=128",
                                "-p", "model.ffn=512",
                                "-p", "model.vocab=256",
                                "-p", "ranks=8"};
  a.insert(a.end(), more.begin(), more.end());
  return run_json(a, tmp, name);
}

// A wide stream: a decode step of `batch` sequences, the residual replicated.
nlohmann::json wide_stream(const std::string& batch, const TempDir& tmp) {
  return wide_model({"-p", "batch=" + batch, "-p", "context=40", "-p", "residual=replicated"}, tmp,
                    "wide_" + batch + ".json");
}

// The numbers of that path (a stream reduced from HBM through staging, two
// layers, each with its own staging) against the reference.
TEST(LlmDecode, AStreamReducedThroughHbmStagingMatchesTheReference) {
  TempDir tmp;
  const nlohmann::json j = wide_stream("64", tmp);
  ASSERT_FALSE(j.is_null());
  const nlohmann::json& m = j["metrics"];
  EXPECT_EQ(m["mapping"]["tcm"]["partial_sums"], "hbm");
  // xn (128 KiB) does not fit whole either: the GEMM phases with more than
  // one column of output tiles load it in K-chunks of whole weight blocks
  // (64 rows), accumulating in TCM.
  EXPECT_EQ(m["mapping"]["tcm"]["xn_in_gemm_phases"], "tcm_k_chunks");
  const auto cols = m["mapping"]["tcm"]["xn_chunk_columns"].get<int64_t>();
  EXPECT_GT(cols, 0);
  EXPECT_LT(cols, 1024);
  EXPECT_EQ(cols % 64, 0);
  EXPECT_LE(m["logits_max_rel_err"].get<double>(), 1e-2);
  EXPECT_NEAR(m["latency_over_model"].get<double>(), 1.0, 0.15);
  // The step model prices the chunks (QKV's six output tile columns and the
  // two GEMMs of gate_up) and the LM head's one column streaming xn.
  for (const char* phase : {"qkv", "gate_up", "lm_head"})
    EXPECT_NEAR(m["phases_critical_ns"][phase].get<double>() /
                    m["step_model"]["phases"][phase]["ns_over_step"].get<double>(),
                1.0, 0.1)
        << phase;
}

// What the step keeps in TCM across phases is what fits beside the layer's
// buffers and one phase's, not a fixed fraction of the budget. Hidden 1024
// on 8 ranks: at batch 32 the partial sums (128 KiB) and xn (64 KiB) both
// stay in TCM; at batch 40 the partial sums (160 KiB) fit only when the
// phases take less than half of the room (their budget falls below that of
// batch 32); at batch 48 (192 KiB) they go to HBM, while the GEMM phases
// still load xn (96 KiB). Each placement computes the reference's logits
// and is what the step model prices.
TEST(LlmDecode, TheStepKeepsInTcmWhatFitsBesideTheLayersBuffers) {
  TempDir tmp;
  struct Case {
    const char* batch;
    const char* partial;
    const char* xn;
  };
  std::map<std::string, uint64_t> budget;
  for (const Case& c :
       {Case{"32", "tcm", "tcm"}, Case{"40", "tcm", "tcm"}, Case{"48", "hbm", "tcm"}}) {
    const nlohmann::json j = wide_stream(c.batch, tmp);
    ASSERT_FALSE(j.is_null()) << c.batch;
    const nlohmann::json& m = j["metrics"];
    EXPECT_EQ(m["mapping"]["tcm"]["partial_sums"], c.partial) << c.batch;
    EXPECT_EQ(m["mapping"]["tcm"]["xn_in_gemm_phases"], c.xn) << c.batch;
    EXPECT_LE(m["logits_max_rel_err"].get<double>(), 1e-2) << c.batch;
    EXPECT_NEAR(m["latency_over_model"].get<double>(), 1.0, 0.15) << c.batch;
    budget[c.batch] = m["mapping"]["tcm"]["phase_budget_bytes"].get<uint64_t>();
  }
  EXPECT_LT(budget["40"], budget["32"]);
}

TEST(LlmDecode, NoResultBeatsItsRoofline) {
  TempDir tmp;
  const std::vector<std::vector<std::string>> cases = {
      {"-p", "batch=1", "-p", "context=100"},
      {"-p", "batch=5", "-p", "context=333", "-p", "ranks=6"},
      {"-p", "batch=2", "-p", "context=1000", "-p", "variant=opt1"},
  };
  int i = 0;
  for (const auto& c : cases) {
    const nlohmann::json j = run_json(args(c), tmp, "c" + std::to_string(i++) + ".json");
    ASSERT_FALSE(j.is_null());
    const nlohmann::json& m = j["metrics"];
    EXPECT_GE(m["latency_per_token_ns"].get<double>(), m["roofline"]["bound_ns"].get<double>())
        << m.dump();
    EXPECT_LE(m["tokens_per_s"].get<double>(), m["roofline_tokens_per_s"].get<double>());
    EXPECT_LE(m["hbm_util"].get<double>(), 1.0);
    double classes = 0;
    for (const auto& [k, v] : m["op_classes_rank0"].items()) classes += v["total_ns"].get<double>();
    // Rank 0's phases cover the step (up to the other ranks' last drain).
    EXPECT_LE(classes, m["latency_per_token_ns"].get<double>() + 1e-6);
    EXPECT_GE(classes, 0.9 * m["latency_per_token_ns"].get<double>());
  }
}

// The per-phase model of the step (platform/analytic/llm_model.h) lies within
// 15 % of the measured step, tensor parallel or pipelined; under tp, phase by
// phase within 10 % for the GEMMs, and the phases' additions to the critical
// path add up to the step.
TEST(LlmDecode, TheStepModelPredictsTheStep) {
  TempDir tmp;
  const std::vector<std::vector<std::string>> cases = {
      args({"-p", "batch=5", "-p", "context=333", "-p", "ranks=6"}),
      args({"-p", "batch=2", "-p", "context=1000", "-p", "variant=opt3", "-p", "allreduce=tree"}),
      two_sips({"-p", "batch=2", "-p", "context=200"}),
      two_sips({"-p", "batch=4", "-p", "context=300", "-p", "mapping=pp", "-p", "model.layers=4",
                "-p", "micro_batches=4"}),
  };
  int i = 0;
  for (const auto& c : cases) {
    const nlohmann::json j = run_json(c, tmp, "m" + std::to_string(i++) + ".json");
    ASSERT_FALSE(j.is_null());
    const nlohmann::json& m = j["metrics"];
    const double latency = m["latency_per_token_ns"].get<double>();
    const nlohmann::json& model = m["step_model"];
    EXPECT_NEAR(m["latency_over_model"].get<double>(), 1.0, 0.15) << model.dump();
    EXPECT_DOUBLE_EQ(latency / model["total_ns"].get<double>(),
                     m["latency_over_model"].get<double>());
    if (model.contains("pipeline")) {
      EXPECT_FALSE(m.contains("phases_critical_ns"));
      continue;
    }
    double critical = 0;
    for (const auto& [phase, ns] : m["phases_critical_ns"].items()) {
      critical += ns.get<double>();
      const nlohmann::json& ph = model["phases"][phase];
      ASSERT_TRUE(ph.is_object()) << phase;
      if (ph["class"] == "gemm") {
        EXPECT_NEAR(ns.get<double>() / ph["ns_over_step"].get<double>(), 1.0, 0.1) << phase;
      }
    }
    EXPECT_LE(critical, latency + 1e-6);
    EXPECT_GE(critical, 0.98 * latency);
    // The summary's QKV gather is priced by the step model's phase per layer
    // (not by the bare all-reduce), and lies as close to it as the phase does.
    const double layers = m["layers_simulated"].get<double>();
    EXPECT_DOUBLE_EQ(m["qkv_gather_model_ns"].get<double>(),
                     model["phases"]["qkv_gather"]["ns_over_step"].get<double>() / layers);
    EXPECT_NEAR(m["qkv_gather_over_model"].get<double>(), 1.0, 0.15) << m.dump();
  }
}

// The step's energy by the op class of its phases adds up to the step's
// energy, tensor parallel (decode and prefill) and pipelined, and each part
// is the energy of what ran in it: more energy per GEMM flop raises no
// class's energy less than nothing, and most of the rise is the gemm
// class's (the rest is the GEMMs of RoPE and attention).
TEST(LlmEnergy, TheOpClassesAddUpToTheStepAndChargeWhatRanInThem) {
  TempDir tmp;
  const std::vector<std::vector<std::string>> cases = {
      args({"-p", "batch=3", "-p", "context=37"}),
      args({"-p", "phase=prefill", "-p", "prompt=23", "-p", "batch=2"}),
      two_sips({"-p", "batch=4", "-p", "context=300", "-p", "mapping=pp", "-p", "model.layers=4",
                "-p", "micro_batches=4"}),
  };
  int i = 0;
  for (const auto& c : cases) {
    const nlohmann::json j = run_json(c, tmp, "e" + std::to_string(i++) + ".json");
    ASSERT_FALSE(j.is_null());
    const nlohmann::json& m = j["metrics"];
    const nlohmann::json& by = m["j_per_token_by_op_class"];
    double sum = 0;
    for (const auto& [k, v] : by.items()) {
      EXPECT_GE(v.get<double>(), 0) << k;
      sum += v.get<double>();
    }
    EXPECT_NEAR(sum, m["j_per_token"].get<double>(), 1e-9 * m["j_per_token"].get<double>())
        << by.dump();
    for (const char* cls : {"gemm", "attention", "allreduce", "norm_elementwise"})
      EXPECT_GT(by.value(cls, 0.0), 0) << cls << ": " << by.dump();
    if (m["mapping"] == "pp") {
      EXPECT_GT(by.value("pipeline", 0.0), 0) << by.dump();
    }
  }
  std::vector<std::string> hot = cases[0];
  hot.insert(hot.end(), {"--set", "pe.gemm.energy.pj_per_flop=10"});
  const nlohmann::json base = run_json(cases[0], tmp, "base.json");
  const nlohmann::json more = run_json(hot, tmp, "hot.json");
  ASSERT_FALSE(base.is_null());
  ASSERT_FALSE(more.is_null());
  const nlohmann::json &b = base["metrics"]["j_per_token_by_op_class"],
                       &h = more["metrics"]["j_per_token_by_op_class"];
  const double rise =
      more["metrics"]["j_per_token"].get<double>() - base["metrics"]["j_per_token"].get<double>();
  ASSERT_GT(rise, 0);
  for (const auto& [k, v] : b.items())
    EXPECT_GE(h[k].get<double>(), v.get<double>() * (1 - 1e-12)) << k;
  EXPECT_GT(h["gemm"].get<double>() - b["gemm"].get<double>(), 0.5 * rise) << b.dump() << h.dump();
}

TEST(LlmDecode, TwoRunsGiveTheSameResult) {
  TempDir tmp;
  nlohmann::json a = run_json(args({"--data", "-p", "batch=2", "-p", "context=50"}), tmp, "a.json");
  nlohmann::json b = run_json(args({"--data", "-p", "batch=2", "-p", "context=50"}), tmp, "b.json");
  a.erase("wall_s");
  b.erase("wall_s");
  EXPECT_EQ(a.dump(), b.dump());
}

// The llm bench records no op log unless one is asked for, and then plans
// its GEMM tiles without operand views: asking for the log changes nothing
// else (the same stages, sizes and times).
TEST(LlmDecode, AskingForTheOpLogChangesNoResult) {
  TempDir tmp;
  nlohmann::json plain = run_json(args({"-p", "batch=2", "-p", "context=50"}), tmp, "a.json");
  nlohmann::json logged = run_json(
      args({"-p", "batch=2", "-p", "context=50", "--oplog", tmp / "ops.jsonl"}), tmp, "b.json");
  ASSERT_FALSE(plain.is_null());
  ASSERT_FALSE(logged.is_null());
  EXPECT_GT(plain["metrics"]["latency_per_token_ns"].get<double>(), 0.0);
  for (const char* what : {"wall_s", "op_log"}) {  // the log's summary: asked for or not
    plain.erase(what);
    logged.erase(what);
  }
  EXPECT_EQ(plain.dump(), logged.dump());
  // The log holds the GEMM tiles, with the bytes their operand views give.
  const std::string ops = test::read_text(tmp / "ops.jsonl");
  EXPECT_NE(ops.find("\"op_kind\":\"gemm\""), std::string::npos);
}

// Fewer layers than the model's, as asked: the figures say so, and the
// whole model's bound stands beside them (below the bound of the layers run:
// it has more of them to stream).
// --csv: the point as one tidy row, and beside it a row per phase and per op
// class, each under a hundred columns (lines: a header and a row each).
TEST(LlmDecode, CsvIsATableOfThePointAPhaseTableAndAnOpClassTable) {
  TempDir tmp;
  std::vector<std::string> a = args({"-p", "batch=2", "-p", "context=37"});
  a.insert(a.end(), {"--csv", tmp / "r.csv"});
  const nlohmann::json j = run_json(a, tmp, "r.json");
  ASSERT_FALSE(j.is_null());
  auto lines = [](const std::string& text) {
    std::vector<std::string> out;
    for (size_t at = 0, nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1)
      out.push_back(text.substr(at, nl - at));
    return out;
  };
  auto columns = [](const std::string& header) {
    return static_cast<size_t>(std::count(header.begin(), header.end(), ',')) + 1;
  };
  const std::vector<std::string> point = lines(test::read_text(tmp / "r.csv"));
  ASSERT_EQ(point.size(), 2u);
  EXPECT_LT(columns(point[0]), 100u) << point[0];
  EXPECT_EQ(columns(point[0]), columns(point[1]));
  EXPECT_NE(point[0].find("latency_ns"), std::string::npos) << point[0];
  EXPECT_EQ(point[0].find("window.cmd_ids"), std::string::npos) << point[0];

  const std::vector<std::string> phases = lines(test::read_text(tmp / "r.phases.csv"));
  ASSERT_EQ(phases.size(), j["metrics"]["phases_rank0_ns"].size() + 1);
  EXPECT_EQ(phases[0].rfind("phase,op_class,rank0_ns,", 0), 0u) << phases[0];
  EXPECT_NE(phases[0].find("model_ns"), std::string::npos) << phases[0];
  bool attention = false;
  for (const std::string& row : phases) attention = attention || row.rfind("attention,", 0) == 0;
  EXPECT_TRUE(attention);

  const std::vector<std::string> classes = lines(test::read_text(tmp / "r.op_classes.csv"));
  ASSERT_EQ(classes.size(), j["metrics"]["op_classes_rank0"].size() + 1);
  EXPECT_EQ(classes[0].rfind("op_class,rank0_ns", 0), 0u) << classes[0];
}

TEST(LlmDecode, FewerLayersAreReportedAsSuch) {
  TempDir tmp;
  std::vector<std::string> a = args({"-p", "layers=2", "--json", tmp / "l.json"});
  a.erase(std::find(a.begin(), a.end(), "-q"));  // the table on stdout
  const test::RunResult r = test::run_kernbench(a, tmp);
  ASSERT_EQ(r.exit_code, 0) << test::describe(r);
  std::ifstream file(tmp / "l.json");
  const nlohmann::json j = nlohmann::json::parse(file);
  EXPECT_EQ(j["metrics"]["layers_simulated"], 2);
  EXPECT_EQ(j["metrics"]["model_layers"], 3);
  EXPECT_FALSE(j["metrics"]["all_layers_simulated"].get<bool>());
  EXPECT_NE(r.out.find("tokens/s (2 of 3 layers: not the model's)"), std::string::npos) << r.out;
  // The power is the whole platform's over the step, and says so.
  EXPECT_NE(r.out.find("average power (W): whole platform (4 cubes, 8 PEs) over the step (2 of 3 "
                       "layers: not the model's)"),
            std::string::npos)
      << r.out;
  const double whole = j["metrics"]["whole_model_roofline_tokens_per_s"].get<double>();
  EXPECT_GT(whole, 0.0);
  EXPECT_LT(whole, j["metrics"]["roofline_tokens_per_s"].get<double>());
}

TEST(LlmDecode, Llama70bRunsOnTheFourSipTopologyByDefault) {
  TempDir tmp;
  // The embedded llama70b_4sip.yaml; a slice of the model on a few PEs.
  const nlohmann::json j =
      run_json({"-b", "llm", "-q", "-p", "layers=1", "-p", "ranks=8", "-p", "model.hidden=256",
                "-p", "model.ffn=512", "-p", "model.vocab=512", "-p", "context=64"},
               tmp, "d.json");
  ASSERT_FALSE(j.is_null());
  EXPECT_EQ(j["topology"]["name"], "llama70b_4sip");
  EXPECT_EQ(j["metrics"]["model"], "llama3_70b");
}

TEST(LlmPipeline, BothPhasesMatchTheReferenceAndTheTensorParallelLogits) {
  TempDir tmp;
  for (const std::string phase : {"decode", "prefill"}) {
    std::vector<double> err;
    for (const std::string mapping : {"tp", "pp"}) {
      const nlohmann::json j =
          run_json(two_sips({"--data", "-p", "phase=" + phase, "-p", "mapping=" + mapping, "-p",
                             length_of(phase), "-p", "batch=3"}),
                   tmp, phase + mapping + ".json");
      ASSERT_FALSE(j.is_null());
      EXPECT_LE(j["metrics"]["logits_max_rel_err"].get<double>(), 1e-2) << j["metrics"].dump();
      EXPECT_GT(j["metrics"]["logits_max_abs_ref"].get<double>(), 0.1);
      err.push_back(j["metrics"]["logits_max_abs_err"].get<double>());
      if (mapping == "pp") {
        const nlohmann::json& m = j["metrics"]["mapping"];
        EXPECT_EQ(m["stages"], 2);
        EXPECT_EQ(m["micro_batches"], 2);
        EXPECT_EQ(m["stage"][0]["layers"]["count"], 1);  // 3 layers: 1 + 2
        EXPECT_EQ(m["stage"][1]["layers"]["count"], 2);
        EXPECT_EQ(m["stage"][1]["rank0"]["pe"], "sip0.cube3.pe0");
      }
    }
    std::cout << phase << ": max abs err tp " << err[0] << ", pp " << err[1] << "\n";
  }
}

TEST(LlmPipeline, NoResultBeatsItsBoundAndMicroBatchesOverlapAPrefillsStages) {
  TempDir tmp;
  std::vector<double> latency;
  for (const std::string phase : {"decode", "prefill"})
    for (const std::string micro : {"1", "4"}) {
      const nlohmann::json j =
          run_json(two_sips({"-p", "mapping=pp", "-p", "phase=" + phase, "-p", "batch=4", "-p",
                             phase == "decode" ? "context=200" : "prompt=64", "-p",
                             "micro_batches=" + micro}),
                   tmp, phase + micro + ".json");
      ASSERT_FALSE(j.is_null());
      const nlohmann::json& m = j["metrics"];
      const double t = m[phase == "decode" ? "latency_per_token_ns" : "ttft_ns"].get<double>();
      EXPECT_GE(t, m["roofline"]["bound_ns"].get<double>()) << m.dump();
      EXPECT_GT(m["op_classes_rank0"]["pipeline"]["total_ns"].get<double>(), 0);
      latency.push_back(t);
    }
  // A prefill's stages work on different micro-batches at once. (A decode
  // step re-streams every stage's weights per micro-batch, so one step gets
  // slower with more of them: pipelining pays across steps, not within one.)
  EXPECT_LT(latency[3], latency[2]);
  EXPECT_GT(latency[1], latency[0]);
}

TEST(LlmAllReduce, HierarchicalGivesTheSameLogitsAsTheTreeInDecodeAndPrefill) {
  TempDir tmp;
  // 6 ranks on tiny.yaml's cubes of 2 PEs: a ring of 2 in each of 3 cubes,
  // the tree across them on half the vector.
  for (const std::string phase : {"decode", "prefill"}) {
    std::vector<double> err;
    for (const std::string algo : {"tree", "hierarchical"}) {
      const nlohmann::json j =
          run_json(args({"--data", "-p", "phase=" + phase, "-p", length_of(phase), "-p", "batch=3",
                         "-p", "allreduce=" + algo}),
                   tmp, phase + algo + ".json");
      ASSERT_FALSE(j.is_null());
      EXPECT_LE(j["metrics"]["logits_max_rel_err"].get<double>(), 1e-2) << j["metrics"].dump();
      EXPECT_GE(j["metrics"]["allreduce_measured_ns"].get<double>(), 0);
      err.push_back(j["metrics"]["logits_max_abs_err"].get<double>());
    }
    std::cout << phase << ": max abs err tree " << err[0] << ", hierarchical " << err[1] << "\n";
  }
}

TEST(LlmAllReduce, TheCubeAllReducesBeatTheTreeOnALargeVector) {
  TempDir tmp;
  // 16 ranks (2 cubes of 8) of the 4-SIP chip, a [8, 4096] fp32 vector: the
  // tree moves 128 KB per level; the cube rings 16 KB per step, then across
  // the two cubes the tree a 16 KB segment each way, halving 8 KB.
  std::vector<double> ar, model;
  for (const std::string algo : {"tree", "hierarchical", "halving"}) {
    const nlohmann::json j = run_json({"-b",
                                       "llm",
                                       "-q",
                                       "-p",
                                       "layers=1",
                                       "-p",
                                       "ranks=16",
                                       "-p",
                                       "model.hidden=4096",
                                       "-p",
                                       "model.heads=32",
                                       "-p",
                                       "model.ffn=4096",
                                       "-p",
                                       "model.vocab=4096",
                                       "-p",
                                       "context=256",
                                       "-p",
                                       "batch=8",
                                       "-p",
                                       "allreduce=" + algo,
                                       "-p",
                                       "residual=replicated"},
                                      tmp, algo + ".json");
    ASSERT_FALSE(j.is_null());
    EXPECT_EQ(j["metrics"]["allreduce"], algo);
    ar.push_back(j["metrics"]["allreduce_measured_ns"].get<double>());
    model.push_back(j["metrics"]["allreduce_over_model"].get<double>());
  }
  EXPECT_LT(ar[1], 0.8 * ar[0]) << "tree " << ar[0] << " ns, hierarchical " << ar[1] << " ns";
  EXPECT_LT(ar[2], 0.9 * ar[1]) << "hierarchical " << ar[1] << " ns, halving " << ar[2] << " ns";
  // The model prices the halving's level within 15%.
  EXPECT_NEAR(model[2], 1.0, 0.15);
}

TEST(LlmAllReduce, HalvingGivesTheSameLogitsAsTheTreeInDecodeAndPrefill) {
  TempDir tmp;
  // 8 ranks on tiny.yaml's 4 cubes of 2 PEs (two KV heads, so 4 ranks a
  // group): a ring of 2 in each cube, halving and doubling across the 4.
  // Hidden 132 splits unevenly: a cube segment of 198 (decode) or 4554
  // (prefill) elements halves into 99, then 49 and 50 (2277, then 1138 and
  // 1139).
  for (const std::string phase : {"decode", "prefill"}) {
    std::vector<double> err;
    for (const std::string algo : {"tree", "halving"}) {
      const nlohmann::json j = run_json(
          args(eight_ranks({"--data", "-p", "phase=" + phase, "-p", length_of(phase), "-p",
                            "batch=3", "-p", "allreduce=" + algo, "-p", "residual=replicated"})),
          tmp, phase + algo + ".json");
      ASSERT_FALSE(j.is_null());
      EXPECT_EQ(j["metrics"]["allreduce"], algo);
      EXPECT_LE(j["metrics"]["logits_max_rel_err"].get<double>(), 1e-2) << j["metrics"].dump();
      err.push_back(j["metrics"]["logits_max_abs_err"].get<double>());
    }
    EXPECT_NEAR(err[0], err[1], 1e-3) << phase;
  }
}

// The sequence-parallel residual stream: each of 8 ranks keeps a shard of
// the flattened stream (hidden 132 over 8 ranks: shards of 49 to 50
// elements that start and end inside rows, so the norm's sums of squares
// come from partial rows), and the logits match the reference and the
// replicated stream's, in decode and prefill. The collectives' models price
// a decode step's reduce-scatter and all-gather within 10 %, and no result
// beats its bound.
TEST(LlmResidual, ShardedGivesTheSameLogitsAsReplicatedInDecodeAndPrefill) {
  TempDir tmp;
  for (const std::string phase : {"decode", "prefill"}) {
    std::vector<double> err;
    for (const std::string residual : {"replicated", "sharded"}) {
      const nlohmann::json j =
          run_json(args(eight_ranks({"--data", "-p", "phase=" + phase, "-p", length_of(phase), "-p",
                                     "batch=3", "-p", "residual=" + residual})),
                   tmp, phase + residual + ".json");
      ASSERT_FALSE(j.is_null());
      const nlohmann::json& m = j["metrics"];
      EXPECT_EQ(m["residual"], residual);
      EXPECT_LE(m["logits_max_rel_err"].get<double>(), 1e-2) << m.dump();
      EXPECT_GT(m["logits_max_abs_ref"].get<double>(), 0.1);
      err.push_back(m["logits_max_abs_err"].get<double>());
      const double latency =
          m[phase == "decode" ? "latency_per_token_ns" : "ttft_ns"].get<double>();
      EXPECT_GE(latency, m["roofline"]["bound_ns"].get<double>());
      if (residual == "sharded") {
        EXPECT_TRUE(m["phases_rank0_ns"].contains("o_reduce_scatter"));
        EXPECT_TRUE(m["phases_rank0_ns"].contains("ffn_norm_gather"));
        EXPECT_FALSE(m["phases_rank0_ns"].contains("o_allreduce"));
        EXPECT_GT(m["reduce_scatter_measured_ns"].get<double>(), 0);
        EXPECT_GT(m["norm_gather_measured_ns"].get<double>(), 0);
        // (A prefill's collectives of a long stream run 10-20 % under their
        // models, replicated or sharded alike: the credit loop's pricing.)
        if (phase == "decode") {
          EXPECT_NEAR(m["reduce_scatter_over_model"].get<double>(), 1.0, 0.1);
          EXPECT_NEAR(m["norm_gather_over_model"].get<double>(), 1.0, 0.1);
          EXPECT_NEAR(m["latency_over_model"].get<double>(), 1.0, 0.15);
        }
      }
    }
    EXPECT_NEAR(err[0], err[1], 1e-3) << phase;
  }
}

// residual=auto, the default: a decode step takes the stream its step model
// prices faster. On 8 ranks of tiny.yaml with hidden 1024, batch 1 stays
// replicated (the sharded norm's all-reduce of its sums of squares costs
// more than it saves) and batch 16 takes the sharded stream, which the
// simulation confirms is faster than the replicated one.
TEST(LlmResidual, AutoTakesTheStreamTheStepModelPricesFaster) {
  TempDir tmp;
  auto run = [&](const std::string& batch, const std::string& residual) {
    return run_json(args({"-p", "model.layers=2",      "-p", "model.hidden=1024",
                          "-p", "model.heads=8",       "-p", "model.kv_heads=2",
                          "-p", "model.d_head=128",    "-p", "model.ffn=1024",
                          "-p", "model.vocab=1000",    "-p", "ranks=8",
                          "-p", "context=100",         "-p", "batch=" + batch,
                          "-p", "residual=" + residual}),
                    tmp, batch + residual + ".json");
  };
  const nlohmann::json one = run("1", "auto");
  ASSERT_FALSE(one.is_null());
  EXPECT_EQ(one["metrics"]["residual"], "replicated");
  EXPECT_TRUE(contains(one["metrics"]["residual_choice"].get<std::string>(),
                       "the step model prices replicated"));
  const nlohmann::json many = run("16", "auto");
  const nlohmann::json forced = run("16", "replicated");
  ASSERT_FALSE(many.is_null());
  ASSERT_FALSE(forced.is_null());
  EXPECT_EQ(many["metrics"]["residual"], "sharded");
  EXPECT_EQ(forced["metrics"]["residual_choice"], "as asked");
  EXPECT_LT(many["metrics"]["latency_per_token_ns"].get<double>(),
            forced["metrics"]["latency_per_token_ns"].get<double>());
  // Where the sharded stream cannot run (6 ranks: 3 cubes), auto is replicated.
  const nlohmann::json six =
      run_json(args({"-p", "batch=16", "-p", "context=37"}), tmp, "six.json");
  ASSERT_FALSE(six.is_null());
  EXPECT_EQ(six["metrics"]["residual"], "replicated");
  EXPECT_TRUE(contains(six["metrics"]["residual_choice"].get<std::string>(), "halving"));
}

// A shard larger than the elementwise phases' TCM budget: with 512 KiB of
// TCM the budget is 112 KiB, 11468 elements of the norm, and each rank's
// shard of 1000 rows x 132 is 16500. The sharded norm takes it in two
// chunks (two passes over x), and the row cut by the chunk boundary sums
// its squares from two pieces.
TEST(LlmResidual, AShardLargerThanTheTcmIsNormalisedInChunks) {
  TempDir tmp;
  const nlohmann::json j = run_json(
      args(eight_ranks({"--data", "-p", "phase=prefill", "-p", "prompt=500", "-p", "batch=2", "-p",
                        "tile=16", "-p", "residual=sharded", "-p", "model.layers=1", "--set",
                        "pe.tcm.size_bytes=512KiB", "--set", "pe.ipcq.ring_bytes=128KiB"})),
      tmp, "chunks.json");
  ASSERT_FALSE(j.is_null());
  EXPECT_LE(j["metrics"]["logits_max_rel_err"].get<double>(), 1e-2) << j["metrics"].dump();
}

// A KV-head group's QKV gather is an all-reduce over the group: recursive
// halving and doubling over a power of two of ranks (4 here), the binomial
// tree over any other count (3), each within 15 % of the step model's phase.
TEST(LlmAllReduce, TheQkvGatherHalvesOverAPowerOfTwoGroup) {
  TempDir tmp;
  for (const std::string ranks : {"8", "6"}) {
    const nlohmann::json j =
        run_json(args({"--data", "-p", "batch=4", "-p", "context=37", "-p", "model.kv_heads=2",
                       "-p", "model.hidden=132", "-p", "model.d_head=22", "-p", "ranks=" + ranks,
                       "-p", "residual=replicated"}),
                 tmp, "g" + ranks + ".json");
    ASSERT_FALSE(j.is_null());
    const nlohmann::json& m = j["metrics"];
    EXPECT_EQ(m["mapping"]["ranks_per_group"], ranks == "8" ? 4 : 3);
    const nlohmann::json& ph = m["step_model"]["phases"]["qkv_gather"];
    const std::string how = ph["bound_by"];
    EXPECT_TRUE(contains(how, ranks == "8" ? "halving:" : "tree:")) << how;
    EXPECT_NEAR(
        m["phases_critical_ns"]["qkv_gather"].get<double>() / ph["ns_over_step"].get<double>(), 1.0,
        0.15)
        << ranks;
    EXPECT_LE(m["logits_max_rel_err"].get<double>(), 1e-2);
  }
}

// The default, auto: halving where the ranks fill a power of two of whole
// cubes (8 ranks on tiny.yaml's 4 cubes of 2 PEs), hierarchical where they
// fill whole cubes (6 ranks, 3 cubes), the tree where they do not (3 ranks).
TEST(LlmAllReduce, AutoIsHalvingOnAPowerOfTwoOfCubesHierarchicalOnWholeCubesTheTreeOtherwise) {
  TempDir tmp;
  const nlohmann::json four =
      run_json(args({"-p", "model.kv_heads=2", "-p", "ranks=8"}), tmp, "four.json");
  ASSERT_FALSE(four.is_null());
  EXPECT_EQ(four["metrics"]["allreduce"], "halving");
  const nlohmann::json whole = run_json(args({}), tmp, "whole.json");
  ASSERT_FALSE(whole.is_null());
  EXPECT_EQ(whole["metrics"]["allreduce"], "hierarchical");
  const nlohmann::json part = run_json(args({"-p", "ranks=3"}), tmp, "part.json");
  ASSERT_FALSE(part.is_null());
  EXPECT_EQ(part["metrics"]["allreduce"], "tree");
}

TEST(LlmPrefill, SmallRaggedModelMatchesTheReferenceAndTheMappingDoesNotChangeIt) {
  TempDir tmp;
  // Two prompts of 23 tokens: ranks 3 (a KV head per PE, all query rows on
  // one rank) and 6 (two PEs per KV head: query blocks 0-10 and 11-22).
  for (const std::string ranks : {"3", "6"}) {
    const nlohmann::json j =
        run_json(args({"--data", "-p", "phase=prefill", "-p", "prompt=23", "-p", "batch=2", "-p",
                       "tile=16", "-p", "ranks=" + ranks}),
                 tmp, "p" + ranks + ".json");
    ASSERT_FALSE(j.is_null());
    const double rel = j["metrics"]["logits_max_rel_err"].get<double>();
    std::cout << "ranks=" << ranks << " max rel err " << rel << "\n";
    EXPECT_LE(rel, 1e-2) << j["metrics"].dump();
    EXPECT_GT(j["metrics"]["logits_max_abs_ref"].get<double>(), 0.1);
    EXPECT_EQ(j["metrics"]["phase"], "prefill");
    EXPECT_GT(j["metrics"]["ttft_ns"].get<double>(), 0);
  }
}

TEST(LlmPrefill, APromptLongerThanTheTcmStreamsThroughItInChunks) {
  TempDir tmp;
  // 600 rows of the residual stream (288 KB in fp32) and 300-token causal
  // attention, with half of a 512 KiB TCM's arena (under 150 KB) as the
  // budget: every phase runs in chunks.
  const nlohmann::json j =
      run_json(args({"--data", "-p", "phase=prefill", "-p", "prompt=300", "-p", "batch=2", "-p",
                     "tile=16", "-p", "layers=1", "--set", "pe.tcm.size_bytes=512KiB", "--set",
                     "pe.ipcq.ring_bytes=64KiB"}),
               tmp, "c.json");
  ASSERT_FALSE(j.is_null());
  EXPECT_LE(j["metrics"]["logits_max_rel_err"].get<double>(), 1e-2) << j["metrics"].dump();
}

// A prompt of 2 x 40 rows of hidden 1024 (xn 160 KiB, beyond the GEMM
// phases' half of the budget): its QKV and gate/up GEMMs load xn in K-chunks
// and the logits still match the reference.
TEST(LlmPrefill, AWideStreamLoadsXnInKChunks) {
  TempDir tmp;
  const nlohmann::json j =
      wide_model({"-p", "batch=2", "-p", "phase=prefill", "-p", "prompt=40"}, tmp, "prefill.json");
  ASSERT_FALSE(j.is_null());
  const nlohmann::json& m = j["metrics"];
  EXPECT_EQ(m["mapping"]["tcm"]["xn_in_gemm_phases"], "tcm_k_chunks");
  EXPECT_LT(m["mapping"]["tcm"]["xn_chunk_columns"].get<int64_t>(), 1024);
  EXPECT_LE(m["logits_max_rel_err"].get<double>(), 1e-2) << m.dump();
}

// The KV cache in native blocks holds the same values: a step over a
// cache of ragged blocks (65 positions per rank: a whole block row and a
// compact one of one position, two attention tiles) gives the row-major
// cache's logits exactly, in decode and prefill; the result says which
// layout ran. One layer, one sequence: small enough for the sanitizer run.
TEST(LlmKvCache, TiledGivesTheLogitsOfRowMajorInDecodeAndPrefill) {
  TempDir tmp;
  for (const std::string phase : {"decode", "prefill"}) {
    double err[2] = {0, 0};
    for (int tiled = 0; tiled < 2; ++tiled) {
      const std::string layout = tiled ? "tiled" : "rowmajor";
      std::vector<std::string> a = {
          "-p", "batch=1", "-p", "layers=1", "-p", "kv_layout=" + layout, "-p", "phase=" + phase};
      a.insert(a.end(), {"-p", phase == "decode" ? "context=259" : "prompt=260"});
      const nlohmann::json j = wide_model(a, tmp, phase + layout + ".json");
      ASSERT_FALSE(j.is_null());
      const nlohmann::json& m = j["metrics"];
      EXPECT_EQ(m["kv_layout"], layout);
      EXPECT_LE(m["logits_max_rel_err"].get<double>(), 1e-2) << m.dump();
      err[tiled] = m["logits_max_abs_err"].get<double>();
    }
    EXPECT_EQ(err[0], err[1]) << phase;
  }
}

TEST(LlmPrefill, NoResultBeatsItsRoofline) {
  TempDir tmp;
  const std::vector<std::vector<std::string>> cases = {
      {"-p", "prompt=23", "-p", "batch=2"},
      {"-p", "prompt=100", "-p", "ranks=6"},
      {"-p", "prompt=64", "-p", "tile=32", "-p", "ranks=3"},
  };
  int i = 0;
  for (auto c : cases) {
    c.insert(c.end(), {"-p", "phase=prefill"});
    const nlohmann::json j = run_json(args(c), tmp, "c" + std::to_string(i++) + ".json");
    ASSERT_FALSE(j.is_null());
    const nlohmann::json& m = j["metrics"];
    EXPECT_GE(m["ttft_ns"].get<double>(), m["roofline"]["bound_ns"].get<double>()) << m.dump();
    EXPECT_LE(m["tokens_per_s"].get<double>(), m["roofline_tokens_per_s"].get<double>());
    EXPECT_LE(m["hbm_util"].get<double>(), 1.0);
    double classes = 0;
    for (const auto& [k, v] : m["op_classes_rank0"].items()) classes += v["total_ns"].get<double>();
    EXPECT_LE(classes, m["ttft_ns"].get<double>() + 1e-6);
    EXPECT_GE(classes, 0.9 * m["ttft_ns"].get<double>());
  }
}

TEST(LlmPrefill, TwoRunsGiveTheSameResult) {
  TempDir tmp;
  const std::vector<std::string> a = {"--data", "-p", "phase=prefill", "-p", "prompt=30"};
  nlohmann::json x = run_json(args(a), tmp, "a.json");
  nlohmann::json y = run_json(args(a), tmp, "b.json");
  x.erase("wall_s");
  y.erase("wall_s");
  EXPECT_EQ(x.dump(), y.dump());
}

struct BadCase {
  std::string name;
  std::vector<std::string> extra;
  std::string topo;
  std::string message;
};

class LlmBadInput : public ::testing::TestWithParam<BadCase> {};

TEST_P(LlmBadInput, IsAClearUsageError) {
  TempDir tmp;
  const BadCase& c = GetParam();
  const test::RunResult r = run_kernbench(args(c.extra, c.topo), tmp);
  const std::string line = test::expect_usage_error(r);
  EXPECT_TRUE(contains(line, c.message)) << line;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, LlmBadInput,
    ::testing::Values(
        BadCase{"does_not_fit_hbm",
                {"-p", "batch=4000", "-p", "context=1000000"},
                kTiny,
                "does not fit HBM: sip0.cube2.pe1 needs"},
        BadCase{"more_ranks_than_pes", {"-p", "ranks=9"}, kTiny, "more PEs than the topology"},
        BadCase{"ranks_not_divisible", {"-p", "ranks=4"}, kTiny, "do not split into 3"},
        BadCase{"zero_dim", {"-p", "model.hidden=0"}, kTiny, "hidden must be > 0"},
        BadCase{"negative_dim", {"-p", "model.ffn=-5"}, kTiny, "ffn must be > 0"},
        BadCase{
            "heads_not_divisible", {"-p", "model.heads=7"}, kTiny, "is not a multiple of kv_heads"},
        BadCase{"unknown_field", {"-p", "model.hiden=64"}, kTiny, "did you mean 'model.hidden'"},
        BadCase{"unknown_model", {"-p", "model=llama3_7b"}, kTiny, "did you mean 'llama3_70b'"},
        BadCase{"unknown_mapping", {"-p", "mapping=zz"}, kTiny, "the mappings are tp"},
        BadCase{"pp_stages_do_not_divide",
                {"-p", "mapping=pp", "-p", "stages=4"},
                kTiny,
                "equal stages"},
        BadCase{"pp_more_stages_than_layers",
                {"-p", "mapping=pp", "-p", "stages=2", "-p", "layers=1"},
                kTiny,
                "a layer at least"},
        BadCase{"pp_more_micro_batches_than_sequences",
                {"-p", "mapping=pp", "-p", "stages=2", "-p", "micro_batches=3", "-p", "batch=2"},
                kTiny,
                "more than the batch"},
        BadCase{"too_many_layers", {"-p", "layers=4"}, kTiny, "has 3"},
        BadCase{"hierarchical_needs_whole_cubes",
                {"-p", "ranks=3", "-p", "allreduce=hierarchical"},
                kTiny,
                "needs whole cubes"},
        BadCase{"halving_needs_whole_cubes",
                {"-p", "ranks=3", "-p", "allreduce=halving"},
                kTiny,
                "allreduce=halving needs whole cubes"},
        BadCase{"halving_needs_a_power_of_two_of_cubes",
                {"-p", "allreduce=halving"},
                kTiny,
                "needs a power of two of cubes, at least two: 6 ranks fill 3"},
        BadCase{"unknown_allreduce", {"-p", "allreduce=ring"}, kTiny, "expected tree, hier"},
        BadCase{"sharded_residual_needs_the_halving",
                {"-p", "residual=sharded"},
                kTiny,
                "residual=sharded reduce-scatters and all-gathers with the halving all-reduce"},
        BadCase{"sharded_residual_is_for_tp",
                {"-p", "residual=sharded", "-p", "mapping=pp", "-p", "stages=3"},
                kTiny,
                "residual=sharded is for mapping=tp"},
        BadCase{"unknown_residual",
                {"-p", "residual=split"},
                kTiny,
                "expected replicated, sharded or auto"},
        BadCase{"unknown_phase", {"-p", "phase=decoding"}, kTiny, "expected decode or prefill"},
        BadCase{"tiled_kv_needs_whole_blocks",
                {"-p", "kv_layout=tiled"},
                kTiny,
                "so d_head (20) and tile (64) must be multiples of 64 (or use "
                "--param kv_layout=rowmajor)"},
        BadCase{"unknown_kv_layout", {"-p", "kv_layout=paged"}, kTiny, "expected tiled, rowmajor"},
        BadCase{"zero_prompt", {"-p", "phase=prefill", "-p", "prompt=0"}, kTiny, "prompt"},
        BadCase{"prompt_shorter_than_a_group",
                {"-p", "phase=prefill", "-p", "prompt=1"},
                kTiny,
                "the prompt's 1 KV positions"},
        BadCase{"ring_region_too_small",
                {"--set", "pe.ipcq.ring_bytes=32KiB"},
                kTiny,
                "holds 2; raise pe.ipcq.ring_bytes to"},
        BadCase{"prefill_ring_region_too_small",
                {"-p", "phase=prefill", "-p", "prompt=23", "--set", "pe.ipcq.ring_bytes=32KiB"},
                kTiny,
                "holds 2; raise pe.ipcq.ring_bytes to"},
        BadCase{"reduce_staging_does_not_fit_tcm",
                {"-p", "batch=64", "-p", "context=40", "--set", "pe.tcm.size_bytes=320KiB", "--set",
                 "pe.ipcq.ring_bytes=64KiB"},
                kTiny,
                "sip0.cube0.pe0 stages what 3 peers send for their all-reduce in TCM, 2 x "
                "pe.ipcq.slots x slot_bytes = 32768 bytes per peer, beside the layer's 46720 "
                "bytes of buffers"},
        BadCase{"prefill_reduce_staging_does_not_fit_tcm",
                {"-p", "phase=prefill", "-p", "prompt=23", "--set", "pe.tcm.size_bytes=288KiB",
                 "--set", "pe.ipcq.ring_bytes=64KiB"},
                kTiny,
                "stages what 3 peers send for their all-reduce in TCM"},
        BadCase{"prefill_does_not_fit_hbm",
                {"-p", "phase=prefill", "-p", "prompt=1000000"},
                kTiny,
                "x prompt 1000000"}),
    [](const auto& info) { return info.param.name; });

// The partial sums in HBM are reduced through TCM staging, one per peer whose
// messages a rank adds in. A TCM too small for that is refused up front
// (before, the run faulted mid-way); half the slots per ring fit the same
// TCM, and so does the TCM size the error asks for.
// A model too large for the topology's HBM: the error names the largest
// shipped model that fits, or, when none does, the shipped topologies this
// one fits (computed by planning each, not listed).
TEST(LlmBadFit, AModelTooLargeForHbmNamesWhatWouldFit) {
  TempDir tmp;
  std::string line = test::expect_usage_error(run_kernbench({"-t", "ahbm_1sip", "-b", "llm"}, tmp));
  EXPECT_TRUE(contains(line, "llm: llama3_70b does not fit HBM")) << line;
  EXPECT_TRUE(contains(line,
                       "bytes short; --param model=llama3_8b fits ahbm_1sip (the largest "
                       "shipped model that does)"))
      << line;
  // -q: naming a topology that fits plans the 70B on the 4-SIP chip, which
  // under the sanitizers takes longer than the progress heartbeat's first 2 s
  // (a progress line, not part of the error).
  line = test::expect_usage_error(run_kernbench({"-t", kTiny, "-b", "llm", "-q"}, tmp));
  EXPECT_TRUE(contains(line,
                       "bytes short; no shipped model fits tiny; llama3_70b as asked fits "
                       "--topology llama70b_4sip"))
      << line;
}

TEST(LlmDecode, ATcmTooSmallForTheReduceStagingIsRefusedUpFront) {
  TempDir tmp;
  auto with = [](const std::string& tcm, const std::string& slots) {
    return args({"-p", "batch=64", "-p", "context=40", "--set", "pe.ipcq.ring_bytes=64KiB", "--set",
                 "pe.tcm.size_bytes=" + tcm, "--set", "pe.ipcq.slots=" + slots});
  };
  const std::string line = test::expect_usage_error(run_kernbench(with("327680", "32"), tmp));
  const std::string key = "raise pe.tcm.size_bytes by ";
  const size_t at = line.find(key);
  ASSERT_NE(at, std::string::npos) << line;
  const uint64_t more = std::stoull(line.substr(at + key.size()));

  // 3 peers x 16 KiB beside the layer's 46720 bytes fit the arena of 98304.
  const nlohmann::json half = run_json(with("327680", "16"), tmp, "half.json");
  EXPECT_EQ(half["metrics"]["mapping"]["tcm"]["partial_sums"], "hbm");
  const nlohmann::json more_tcm =
      run_json(with(std::to_string(327680 + more), "32"), tmp, "more.json");
  EXPECT_FALSE(more_tcm.empty());
}

TEST(LlmModelSpec, AFileErrorNamesLineColumnAndTheNearestField) {
  TempDir tmp;
  test::write_text(tmp / "m.yaml",
                   "name: m\nlayers: 2\nhidden: 64\nheads: 4\nkv_heads: 2\nd_head: 16\n"
                   "ffn: 128\nvocab: 100\nnorm_eps: 1e-5\nrope_thta: 10000\ndtype: fp16\n");
  const test::RunResult r =
      run_kernbench({"-t", kTiny, "-b", "llm", "-p", "model=" + (tmp / "m.yaml")}, tmp);
  const std::string line = test::expect_usage_error(r);
  EXPECT_TRUE(contains(line, "m.yaml:10:1: rope_thta: unknown field (did you mean 'rope_theta'?)"))
      << line;
}

}  // namespace
}  // namespace kb

namespace kb {
namespace {

// Every additive leaf of `stats`, by path.
void leaves(const nlohmann::json& stats, const std::string& prefix,
            std::map<std::string, double>& out) {
  for (auto it = stats.begin(); it != stats.end(); ++it) {
    const std::string& k = it.key();
    if (k.rfind("max_", 0) == 0 || k.rfind("peak_", 0) == 0 || k == "utilization") continue;
    if (it->is_object())
      leaves(*it, prefix + k + ".", out);
    else if (it->is_number())
      out[prefix + k] = it->get<double>();
  }
}

// The layer extension against the whole model simulated: a ragged model of 9
// layers, decode and prefill. Every extended figure lies within its reported
// error bar of the full run's, every counter within the worst figure's
// relative error bar, and the result says what was simulated.
TEST(LlmExtension, ExtendedFiguresLieWithinTheirErrorBarsOfTheFullRun) {
  for (const std::string phase : {"decode", "prefill"}) {
    TempDir tmp;
    const std::vector<std::string> base = {"-p", "model.layers=9", "-p", "phase=" + phase,
                                           "-p", length_of(phase), "-p", "batch=2"};
    std::vector<std::string> on = base, off = base;
    off.insert(off.end(), {"-p", "extend=off"});
    const nlohmann::json e = run_json(args(on), tmp, "on.json");
    const nlohmann::json f = run_json(args(off), tmp, "off.json");
    ASSERT_FALSE(e.is_null());
    ASSERT_FALSE(f.is_null());
    const nlohmann::json& me = e["metrics"];
    const nlohmann::json& mf = f["metrics"];
    const nlohmann::json& x = me["layer_extension"];
    ASSERT_TRUE(x["extended"].get<bool>()) << x.dump();
    const int simulated = me["layers_simulated"].get<int>();
    EXPECT_LT(simulated, 9) << phase;
    EXPECT_EQ(me["layers_extended"].get<int>(), 9 - simulated);
    EXPECT_EQ(mf["layers_simulated"], 9);
    EXPECT_FALSE(mf["layer_extension"]["extended"].get<bool>());
    EXPECT_EQ(mf["layer_extension"]["why_not"], "extend=off");
    const char* latency = phase == "decode" ? "latency_per_token_ns" : "ttft_ns";
    const double err = me["latency_error_ns"].get<double>();
    EXPECT_LE(std::abs(me[latency].get<double>() - mf[latency].get<double>()), err + 1e-6)
        << phase << ": " << me[latency] << " ± " << err << " vs " << mf[latency];
    EXPECT_NEAR(e["extended"]["sim_time_ns"].get<double>(), f["sim_time_ns"].get<double>(),
                e["extended"]["sim_time_error_ns"].get<double>() + 1e-6);
    // Every figure the result gives an error bar (time, energy by class, the
    // activity counters, the op classes' energy) within it of the full run's.
    std::map<std::string, double> full_figures = {
        {"time_ns", f["sim_time_ns"].get<double>()},
        {"energy_pj", f["energy"]["dynamic_pj"].get<double>()},
        {"link_bytes", mf["link_bytes"].get<double>()},
        {"ipcq_ops", mf["ipcq_ops"].get<double>()}};
    for (const auto& [name, want] : full_figures) {
      const nlohmann::json& fig = x["figures"][name];
      EXPECT_LE(std::abs(fig["value"].get<double>() - want), fig["error"].get<double>() + 1e-6)
          << phase << ": " << name << " " << fig.dump() << " vs " << want;
    }
    const double tokens = phase == "decode" ? 2 : 2 * 23;
    for (const auto& [cls, j] : mf["j_per_token_by_op_class"].items()) {
      if (cls == "after_last_phase") continue;  // not a layer's: no error bar
      const nlohmann::json& fig = x["figures"]["op_class_pj." + cls];
      EXPECT_LE(std::abs(fig["value"].get<double>() - j.get<double>() * tokens * 1e12),
                fig["error"].get<double>() + 1e-3)
          << phase << ": " << cls;
    }
    // Each module's own counters are extended by the same rule from their own
    // increments. A pseudo-channel's share is not the same in every layer
    // (each layer's weights start at another place of the interleave), so a
    // single channel's count can be off by more than its bar; summed over the
    // modules, each kind of counter is held to the 1 % every shortcut must
    // meet.
    std::map<std::string, double> ext, full, ext_sum, full_sum;
    leaves(e["extended"]["stats"], "", ext);
    leaves(f["stats"], "", full);
    auto kind = [](const std::string& path) { return path.substr(path.rfind('.') + 1); };
    for (const auto& [name, v] : full) {
      ASSERT_TRUE(ext.count(name)) << name;
      ext_sum[kind(name)] += ext[name];
      full_sum[kind(name)] += v;
    }
    for (const auto& [k, v] : full_sum)
      EXPECT_LE(std::abs(ext_sum[k] - v), 0.01 * std::abs(v) + 1.0)
          << phase << ": " << k << " extended " << ext_sum[k] << ", simulated whole " << v;
    // The simulated part is what the top level, the op log and runs[] hold.
    EXPECT_LT(e["sim_time_ns"].get<double>(), f["sim_time_ns"].get<double>());
  }
}

// Taking the snapshots changes nothing: a tolerance no window meets
// simulates every layer, with the same result as extend=off, and says why.
TEST(LlmExtension, ALayerStackThatNeverSettlesIsSimulatedWholeAndUnchanged) {
  TempDir tmp;
  const std::vector<std::string> base = {"-p", "model.layers=6", "-p", "batch=2",
                                         "-p", "context=37"};
  std::vector<std::string> never = base, off = base;
  never.insert(never.end(), {"-p", "extend_tolerance=0"});
  off.insert(off.end(), {"-p", "extend=off"});
  nlohmann::json n = run_json(args(never), tmp, "n.json");
  nlohmann::json f = run_json(args(off), tmp, "f.json");
  ASSERT_FALSE(n.is_null());
  ASSERT_FALSE(f.is_null());
  const nlohmann::json x = n["metrics"]["layer_extension"];
  EXPECT_FALSE(x["extended"].get<bool>());
  EXPECT_EQ(x["simulated_layers"], 6);
  EXPECT_NE(x["why_not"].get<std::string>().find("never settled"), std::string::npos) << x.dump();
  for (nlohmann::json* j : {&n, &f}) {
    j->erase("wall_s");
    j->erase("params");
    (*j)["metrics"].erase("layer_extension");
  }
  EXPECT_EQ(n.dump(), f.dump());
}

// Where the extension cannot be used, the result says why.
TEST(LlmExtension, RunsThatCannotBeExtendedSayWhy) {
  TempDir tmp;
  const nlohmann::json shallow = run_json(args({}), tmp, "s.json");  // 3 layers
  ASSERT_FALSE(shallow.is_null());
  EXPECT_NE(shallow["metrics"]["layer_extension"]["why_not"].get<std::string>().find("3 layers"),
            std::string::npos);
  const nlohmann::json data =
      run_json(args({"--data", "-p", "model.layers=6", "-p", "context=20"}), tmp, "d.json");
  ASSERT_FALSE(data.is_null());
  EXPECT_NE(data["metrics"]["layer_extension"]["why_not"].get<std::string>().find("data mode"),
            std::string::npos);
  EXPECT_EQ(data["metrics"]["layers_simulated"], 6);
  const test::RunResult bad = run_kernbench(args({"-p", "extend=maybe"}), tmp);
  EXPECT_TRUE(contains(test::expect_usage_error(bad), "extend=maybe")) << test::describe(bad);
}

}  // namespace
}  // namespace kb
