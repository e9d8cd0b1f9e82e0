// The two readers of the modules' statistics (models/common/instrumented.h):
// the JSON object of a result's "stats", and the listing of every counter with
// its unit and description (kernbench --describe-stats).
#pragma once

#include <deque>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/common/instrumented.h"

namespace kb {

// Each group becomes out[key], each counter out[key][name] = value.
class JsonStatsSink : public StatsSink {
 public:
  explicit JsonStatsSink(nlohmann::json& out) : out_(out) {}
  void group(const std::string& key) override { cur_ = &out_[key]; }
  void count(const char* name, uint64_t value, const char*, const char*) override {
    (*cur_)[name] = value;
  }
  void real(const char* name, double value, const char*, const char*) override {
    (*cur_)[name] = value;
  }
  void text(const char* name, const std::string& value, const char*) override {
    (*cur_)[name] = value;
  }
  void count_by(const char* name, const std::map<std::string, uint64_t>& value, const char*,
                const char*) override {
    (*cur_)[name] = value;
  }
  void real_by(const char* name, const std::map<std::string, double>& value, const char*,
               const char*) override {
    (*cur_)[name] = value;
  }

 private:
  nlohmann::json& out_;
  nlohmann::json* cur_ = nullptr;
};

// Lists every counter once per kind of group: a group's key with its indices
// written as `*` (system.sip*.cube*.pe*.dma.read_channel), in the order the
// module tree first shows it.
class DescribeStatsSink : public StatsSink {
 public:
  bool describing() const override { return true; }
  void group(const std::string& key) override;
  void count(const char* name, uint64_t, const char* unit, const char* what) override {
    add(name, unit, what);
  }
  void real(const char* name, double, const char* unit, const char* what) override {
    add(name, unit, what);
  }
  void text(const char* name, const std::string&, const char* what) override {
    add(name, "text", what);
  }
  void count_by(const char* name, const std::map<std::string, uint64_t>&, const char* unit,
                const char* what) override {
    add(name, unit, what, true);
  }
  void real_by(const char* name, const std::map<std::string, double>&, const char* unit,
               const char* what) override {
    add(name, unit, what, true);
  }
  // One block per kind of group: its pattern, then a line per counter.
  std::string listing() const;

 private:
  struct Counter {
    std::string name, unit, what;
  };
  struct Group {
    std::string pattern;
    std::vector<Counter> counters;
  };
  void add(const char* name, const char* unit, const char* what, bool by_key = false);
  std::deque<Group> groups_;  // stable addresses for cur_
  Group* cur_ = nullptr;
};

}  // namespace kb
