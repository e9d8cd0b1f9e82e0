// First config layer: YAML text -> validated TopologyConfig.
//
// A schema lists every knob (dotted key path, type, default, one-line
// description, constraint). Loading walks the YAML against the schema:
// unknown keys are rejected with the nearest valid key, every value is
// type- and range-checked, and each error names file:line:column and the
// key path. `--set key.path=value` overrides are applied on top of the file
// before validation; an error in one names the override.
#pragma once

#include <string>
#include <vector>

#include "platform/config/topology_config.h"

namespace kb {

// Parses and validates `path`. Throws ConfigError (message starts with
// "path:line:col: key.path: ...", or "--set ...: ..." for overrides).
TopologyConfig load_topology_file(const std::string& path,
                                  const std::vector<std::string>& overrides = {});

// Same for YAML text already in memory; `source_name` is used in messages.
TopologyConfig load_topology_text(const std::string& yaml_text, const std::string& source_name,
                                  const std::vector<std::string>& overrides = {});

// `--topology ARG`: the file ARG when it exists, else the shipped topology
// named ARG ("llama70b_4sip", or its repository path
// "topologies/llama70b_4sip.yaml"), embedded in the binary so it loads from
// any directory. ConfigError naming the shipped ones when ARG is neither.
TopologyConfig load_topology(const std::string& arg,
                             const std::vector<std::string>& overrides = {});
// The `source` load_topology(arg) records: the path of a file, or
// "topologies/NAME.yaml (embedded)" for a shipped topology.
std::string topology_source(const std::string& arg);

// The default topology (topologies/ahbm_1sip.yaml), embedded in the binary.
TopologyConfig load_default_topology(const std::vector<std::string>& overrides = {});
const std::string& embedded_default_topology_yaml();

// Every knob with its type, default and description, one per line, grouped
// by section: what `kernbench --describe-topology` prints.
std::string describe_topology_knobs();

}  // namespace kb
