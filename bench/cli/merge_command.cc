#include "bench/cli/merge_command.h"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bench/cli/subcommand.h"
#include "bench/results/merge.h"
#include "bench/results/report.h"

namespace wirebench {

namespace {

struct MergeOptions {
  std::vector<std::string> inputs;
  std::string out;    // Merged JSON; empty = none.
  bool text = false;  // Text report on stdout (the default without --out).
};

int RunMerge(const MergeOptions& o) {
  std::vector<NamedResult> inputs;
  for (const std::string& path : o.inputs) {
    auto r = ReadResultFile(path);
    if (!r.ok()) {
      std::fprintf(stderr, "wirebench merge: %s\n", r.status().ToString().c_str());
      return 2;
    }
    inputs.push_back(std::move(r).value());
  }
  auto merged = MergeResults(inputs);
  if (!merged.ok()) {
    std::fprintf(stderr, "wirebench merge: %s\n", merged.status().ToString().c_str());
    return 2;
  }
  for (const std::string& w : merged->warnings)
    std::fprintf(stderr, "wirebench merge: warning: %s\n", w.c_str());
  if (o.text || o.out.empty()) {
    std::fputs(merged->text.c_str(), stdout);
    std::fflush(stdout);
  }
  if (!o.out.empty()) {
    Status s = WriteFileAtomically(o.out, merged->json.dump(2));
    if (!s.ok()) {
      std::fprintf(stderr, "wirebench merge: %s\n", s.ToString().c_str());
      return 2;
    }
    std::fprintf(stderr, "wirebench merge: %zu results, %llu operations -> %s\n", inputs.size(),
                 static_cast<unsigned long long>(merged->result.operations), o.out.c_str());
  }
  return merged->result.partial ? 3 : 0;
}

}  // namespace

void AddMergeCommand(CLI::App& app, int* exit_code) {
  auto [cmd, o] = AddSubcommand<MergeOptions>(
      app, "merge",
      "Merge the JSON results of clients that ran against one server at the same time "
      "(histograms merged exactly, counts and client costs summed, server figures taken once)",
      exit_code, RunMerge);
  cmd->add_option("results", o->inputs, "Result files written by `wirebench run --json`")
      ->required();
  cmd->add_option("--out", o->out,
                  "Write the merged JSON result here (a regular file is replaced atomically; "
                  "a symlink is followed; a FIFO or device is written through; - = stdout)");
  cmd->add_flag("--text", o->text,
                "Print the merged YCSB-style text report (the default when --out is not given)");
}

}  // namespace wirebench
