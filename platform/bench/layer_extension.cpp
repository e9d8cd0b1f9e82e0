#include "platform/bench/layer_extension.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "platform/bench/bench.h"

namespace kb {

LayerExtension::LayerExtension(Options options, int64_t layers, std::vector<std::string> gated)
    : options_(options), layers_(layers), gated_(std::move(gated)), limit_(layers) {
  if (options_.on && layers_ < options_.min_window + 2)
    turn_off("the step has " + std::to_string(layers_) + " layers: verifying an extension takes " +
             std::to_string(options_.min_window + 2) +
             " (a first layer, a window and the layer in flight)");
}

void LayerExtension::turn_off(const std::string& why) {
  options_.on = false;
  why_ = why;
}

size_t LayerExtension::index_of(const std::string& name) {
  const auto [it, fresh] = index_.emplace(name, names_.size());
  if (fresh) names_.push_back(name);
  return it->second;
}

std::vector<double> LayerExtension::take() {
  std::vector<double> mark(names_.size(), 0.0);
  for (const auto& [name, v] : snapshot_()) {
    const size_t i = index_of(name);
    if (i >= mark.size()) mark.resize(i + 1, 0.0);
    mark[i] = v;
  }
  return mark;
}

void LayerExtension::start() {
  if (!options_.on) return;
  marks_.clear();
  marks_.push_back(take());
}

std::pair<double, double> LayerExtension::spread(size_t i, int64_t w, int64_t e) const {
  double sum = 0;
  for (int64_t l = w; l <= e; ++l)
    sum += at(marks_[static_cast<size_t>(l + 1)], i) - at(marks_[static_cast<size_t>(l)], i);
  const double mean = sum / static_cast<double>(e - w + 1);
  double dev = 0;
  for (int64_t l = w; l <= e; ++l)
    dev = std::max(dev, std::abs(at(marks_[static_cast<size_t>(l + 1)], i) -
                                 at(marks_[static_cast<size_t>(l)], i) - mean));
  return {mean, dev};
}

namespace {

// An error bar relative to its total (0 when both are 0).
double relative(double error, double total) {
  if (error == 0) return 0;
  return total != 0 ? error / std::abs(total) : std::numeric_limits<double>::infinity();
}

}  // namespace

void LayerExtension::layer_done(int64_t layer) {
  if (!options_.on || marks_.empty()) return;
  marks_.push_back(take());
  if (window_first_ >= 0) return;  // decided: the layer in flight is being recorded
  const int64_t done = layer + 1, cut = layer + 2;
  if (cut >= layers_) return;  // nothing left to extend
  for (int64_t w = 1; layer - w + 1 >= options_.min_window; ++w) {
    double worst = 0;
    std::string worst_name;
    for (const std::string& g : gated_) {
      const auto it = index_.find(g);
      if (it == index_.end()) continue;
      const auto [mean, dev] = spread(it->second, w, layer);
      const double total =
          at(marks_.back(), it->second) + static_cast<double>(layers_ - done) * mean;
      const double rel = relative(static_cast<double>(layers_ - cut) * dev, total);
      if (rel > worst) {
        worst = rel;
        worst_name = g;
      }
    }
    if (worst <= options_.tolerance) {
      window_first_ = w;
      limit_ = cut;
      return;
    }
    if (best_error_ < 0 || worst < best_error_) {
      best_error_ = worst;
      best_figure_ = worst_name;
    }
  }
}

void LayerExtension::finish() {
  if (!options_.on || marks_.empty()) return;
  final_ = take();
  simulated_ = static_cast<int64_t>(marks_.size()) - 1;
  extended_ = window_first_ >= 0 && simulated_ < layers_;
  if (!extended_ && why_.empty())
    why_ = best_error_ < 0 ? "no window of " + std::to_string(options_.min_window) +
                                 " layers after the first was left to test"
                           : "the layers never settled within " + fmt(100 * options_.tolerance, 2) +
                                 " %: the best window left " + best_figure_ + " at " +
                                 fmt(100 * best_error_, 2) + " %";
}

Extended LayerExtension::figure(const std::string& name) const {
  const auto it = index_.find(name);
  if (it == index_.end()) return {};
  const double total = at(final_, it->second);
  if (!extended_) return {total, 0};
  const auto [mean, dev] = spread(it->second, window_first_, simulated_ - 1);
  const auto left = static_cast<double>(layers_ - simulated_);
  return {total + left * mean, left * dev};
}

double LayerExtension::added(const std::string& name) const {
  const auto it = index_.find(name);
  return it == index_.end() ? 0.0 : figure(name).value - at(final_, it->second);
}

Extended LayerExtension::series(const std::vector<double>& per_layer, double total) const {
  if (!extended_) return {total, 0};
  double sum = 0;
  const auto n = static_cast<double>(simulated_ - window_first_);
  for (int64_t l = window_first_; l < simulated_; ++l) sum += per_layer.at(static_cast<size_t>(l));
  const double mean = sum / n;
  double dev = 0;
  for (int64_t l = window_first_; l < simulated_; ++l)
    dev = std::max(dev, std::abs(per_layer.at(static_cast<size_t>(l)) - mean));
  const auto left = static_cast<double>(layers_ - simulated_);
  return {total + left * mean, left * dev};
}

namespace {

bool additive(const std::string& key) {
  return key.rfind("max_", 0) != 0 && key.rfind("peak_", 0) != 0 && key != "utilization";
}

}  // namespace

void LayerExtension::add_additive(const nlohmann::json& stats, const std::string& prefix,
                                  Figures& out) {
  for (auto it = stats.begin(); it != stats.end(); ++it) {
    if (!additive(it.key())) continue;
    if (it->is_object())
      add_additive(*it, prefix + it.key() + ".", out);
    else if (it->is_number())
      out.emplace_back(prefix + it.key(), it->get<double>());
  }
}

nlohmann::json LayerExtension::extend_stats(const nlohmann::json& stats,
                                            const std::string& prefix) const {
  nlohmann::json out = stats;
  for (auto it = out.begin(); it != out.end(); ++it) {
    if (!additive(it.key())) continue;
    if (it->is_object()) {
      *it = extend_stats(*it, prefix + it.key() + ".");
    } else if (it->is_number()) {
      const double v = figure(prefix + it.key()).value;
      if (it->is_number_unsigned())
        *it = static_cast<uint64_t>(std::llround(std::max(0.0, v)));
      else if (it->is_number_integer())
        *it = static_cast<int64_t>(std::llround(v));
      else
        *it = v;
    }
  }
  return out;
}

nlohmann::json LayerExtension::to_json() const {
  nlohmann::json j = {{"on", options_.on},
                      {"extended", extended_},
                      {"layers", layers_},
                      {"tolerance", options_.tolerance}};
  if (!options_.on && marks_.empty()) {
    j["why_not"] = why_;
    return j;
  }
  j["simulated_layers"] = simulated_;
  j["extended_layers"] = extended_ ? layers_ - simulated_ : 0;
  if (!extended_) {
    j["why_not"] = why_;
    return j;
  }
  j["window"] = {window_first_, simulated_ - 1};
  nlohmann::json errors = nlohmann::json::object();
  double worst = 0;
  std::string worst_name;
  for (size_t i = 0; i < names_.size(); ++i) {
    const Extended e = figure(names_[i]);
    const double rel = relative(e.error, e.value);
    if (names_[i].rfind("stats.", 0) != 0)
      errors[names_[i]] = {
          {"value", e.value},
          {"error", e.error},
          {"relative", rel},
          {"gated", std::find(gated_.begin(), gated_.end(), names_[i]) != gated_.end()}};
    if (rel > worst) {
      worst = rel;
      worst_name = names_[i];
    }
  }
  for (const auto& [name, e] : reported_)
    errors[name] = {{"value", e.value},
                    {"error", e.error},
                    {"relative", relative(e.error, e.value)},
                    {"gated", false}};
  j["figures"] = errors;
  j["worst_figure"] = {{"name", worst_name}, {"relative_error", worst}};
  return j;
}

std::string LayerExtension::summary() const {
  if (!extended_)
    return "every layer simulated" + (why_.empty() ? std::string() : " (" + why_ + ")");
  const Extended t = figure("time_ns");
  return std::to_string(simulated_) + " simulated, " + std::to_string(layers_ - simulated_) +
         " extended by the mean of layers " + std::to_string(window_first_) + "-" +
         std::to_string(simulated_ - 1) + ", latency error bar " +
         fmt(100 * relative(t.error, t.value), 3) + " %";
}

}  // namespace kb
