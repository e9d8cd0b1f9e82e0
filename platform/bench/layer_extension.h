// Verified layer extension (docs/ARCHITECTURE.md, "Layer extension"): a
// step's layers are simulated until their increments settle, and the layers
// left are then extended by the mean of the settled ones, each figure with an
// error bar from their spread.
//
// The bench takes a snapshot of every additive figure (time, energy, counters)
// when rank 0 finishes each layer. Layer 0 carries the step's start (rings
// opening, the first weights) and is never part of the window. After layer l,
// the window is the last layers [w, l], at least `min_window` of them, from
// the earliest w at which every gated figure's extended error bar is within
// `tolerance` of its extended total. Once one is found, the layer limit is
// set to l + 2: every rank may already have started layer l + 1, and none can
// finish it before rank 0 has taken part in its collectives, so every rank
// stops after it (the firmware reads the limit before each layer). Layer
// l + 1 joins the window. For every figure, with c layers simulated of L:
//   extended = simulated total + (L - c) x mean of the window's increments
//   error    = (L - c) x largest deviation of an increment from that mean.
// Where no window settles, every layer is simulated and the reason is kept.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace kb {

struct Extended {
  double value = 0;
  double error = 0;  // half-width of the error bar, in the figure's unit
};

class LayerExtension {
 public:
  struct Options {
    bool on = true;
    double tolerance = 0.005;  // the gated figures' largest relative error bar
    int64_t min_window = 3;    // settled layers the mean is taken over, at least
  };
  using Figures = std::vector<std::pair<std::string, double>>;  // additive, by name

  // `layers`: the step's layers (L); `gated`: the figures whose error bars
  // decide when to stop.
  LayerExtension(Options options, int64_t layers, std::vector<std::string> gated);
  // Every additive figure now (set before start()).
  void set_snapshot(std::function<Figures()> snapshot) { snapshot_ = std::move(snapshot); }

  // Not extended, for `why` (data mode, a pipeline, layers asked for).
  void turn_off(const std::string& why);
  bool on() const { return options_.on; }

  void start();              // at the step's launch
  void layer_done(int64_t);  // rank 0 has finished this layer (0-based), now
  void finish();             // at the step's end

  // How many layers every rank runs; lowered while the step runs.
  const int64_t* limit() const { return &limit_; }

  bool extended() const { return extended_; }
  int64_t layers() const { return layers_; }
  int64_t simulated() const { return simulated_; }
  // A figure of the snapshots over the whole step, extended.
  Extended figure(const std::string& name) const;
  // What the extended layers add to that figure: (L - c) x its window mean.
  double added(const std::string& name) const;
  // A figure known per simulated layer (`per_layer[i]`, layer i) whose
  // simulated total, with what the step did outside its layers, is `total`.
  Extended series(const std::vector<double>& per_layer, double total) const;
  // Adds a figure the bench extended itself (with series) to to_json()'s.
  void report(const std::string& name, const Extended& e) { reported_[name] = e; }
  // Every additive counter of `stats` (Platform::stats(): nested by module)
  // extended, from the snapshots' figures named `prefix` + its path.
  nlohmann::json extend_stats(const nlohmann::json& stats, const std::string& prefix) const;
  // Every additive leaf of `stats` as a figure named `prefix` + its path
  // ("stats.system.sip0...requests"): maxima, peaks and utilisations are not.
  static void add_additive(const nlohmann::json& stats, const std::string& prefix, Figures& out);

  // {on, simulated_layers, extended_layers, window, tolerance, errors, why}
  nlohmann::json to_json() const;
  // One phrase for a table's title: "6 simulated, 74 extended (error bar 0.02 %)".
  std::string summary() const;

 private:
  size_t index_of(const std::string& name);
  std::vector<double> take();
  double at(const std::vector<double>& mark, size_t i) const {
    return i < mark.size() ? mark[i] : 0.0;
  }
  // Mean and largest deviation of figure i's increments over layers [w, e].
  std::pair<double, double> spread(size_t i, int64_t w, int64_t e) const;

  Options options_;
  int64_t layers_;
  std::function<Figures()> snapshot_;
  std::vector<std::string> gated_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, size_t> index_;
  // marks_[0] at the launch, marks_[l + 1] after layer l; final_ at the end.
  std::vector<std::vector<double>> marks_;
  std::vector<double> final_;
  int64_t limit_;
  int64_t window_first_ = -1;  // w, once settled
  int64_t simulated_ = 0;
  bool extended_ = false;
  std::string why_;
  // The closest a window came, where none settled: its largest gated error.
  double best_error_ = -1;
  std::string best_figure_;
  std::map<std::string, Extended> reported_;
};

}  // namespace kb
