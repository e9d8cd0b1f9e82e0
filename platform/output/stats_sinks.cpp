#include "platform/output/stats_sinks.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace kb {

void DescribeStatsSink::group(const std::string& key) {
  std::string pattern;
  for (size_t i = 0; i < key.size();) {
    // An index: a run of digits that ends a name or a word (pe3, cube0_to, not h2d).
    size_t j = i;
    while (j < key.size() && std::isdigit(static_cast<unsigned char>(key[j]))) ++j;
    if (j > i && (j == key.size() || key[j] == '.' || key[j] == '_')) {
      pattern += '*';
      i = j;
    } else if (j > i) {
      pattern.append(key, i, j - i);
      i = j;
    } else {
      pattern += key[i++];
    }
  }
  // A pattern seen before gains only the counters it did not list yet (the
  // RTL counters of a PE_MATH lane, when the first PE is on TLM).
  const auto it = std::find_if(groups_.begin(), groups_.end(),
                               [&](const Group& g) { return g.pattern == pattern; });
  if (it != groups_.end()) {
    cur_ = &*it;
    return;
  }
  groups_.push_back({pattern, {}});
  cur_ = &groups_.back();
}

void DescribeStatsSink::add(const char* name, const char* unit, const char* what, bool by_key) {
  if (!cur_) return;
  const std::string full = std::string(name) + (by_key ? "{...}" : "");
  for (const Counter& c : cur_->counters)
    if (c.name == full) return;
  cur_->counters.push_back({full, *unit ? unit : "-", what});
}

std::string DescribeStatsSink::listing() const {
  size_t name_w = 0, unit_w = 0;
  for (const Group& g : groups_)
    for (const Counter& c : g.counters) {
      name_w = std::max(name_w, c.name.size());
      unit_w = std::max(unit_w, c.unit.size());
    }
  auto same = [](const Group& a, const Group& b) {
    return std::equal(a.counters.begin(), a.counters.end(), b.counters.begin(), b.counters.end(),
                      [](const Counter& x, const Counter& y) {
                        return x.name == y.name && x.unit == y.unit && x.what == y.what;
                      });
  };
  // The groups with the same counters (every queue, every engine lane) share one block.
  std::ostringstream os;
  std::vector<bool> done(groups_.size(), false);
  for (size_t i = 0; i < groups_.size(); ++i) {
    if (done[i]) continue;
    if (i > 0) os << "\n";
    for (size_t j = i; j < groups_.size(); ++j)
      if (!done[j] && same(groups_[i], groups_[j])) {
        os << groups_[j].pattern << "\n";
        done[j] = true;
      }
    for (const Counter& c : groups_[i].counters)
      os << "  " << c.name << std::string(name_w - c.name.size() + 2, ' ') << c.unit
         << std::string(unit_w - c.unit.size() + 2, ' ') << c.what << "\n";
  }
  return os.str();
}

}  // namespace kb
