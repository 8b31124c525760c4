// `--instructions`: deterministic user-space instructions per operation on
// both sides, counted by Valgrind's callgrind and attributed to layers.
//
// How a run goes: the command (`run` or `compare`) re-executes its own
// command line under `valgrind --tool=callgrind --trace-children=yes`
// (RunSelfUnderCallgrind), so the co-located server it spawns runs under
// callgrind too. Inside, a fixed warm-up of operations runs unmeasured
// (RunInstructionWarmup), then the measured run: the client zeroes
// callgrind's counters where its CPU snapshot is taken and dumps them where
// the closing one is (driver.cc, common/callgrind_marks.h); the server dumps
// at every Stats call, so its dump at the closing Stats call covers exactly
// the measured phase (transports/wirebench/server_connection.cc). CollectInstructions then
// reads both dumps and divides by the measured operation count.
//
// Layer attribution (AttributeLayers): every function is given a layer by
// its qualified name (LayerOfFunction), from what the registries' entries
// declare (their symbol prefixes, common/registry.h), never from source
// paths, so a Release binary without line tables splits the same way:
//   codec   - every codec entry's prefixes (its generated code, its
//             library) and the Codec interface's implementations (a class
//             named ...Codec, the EncodeRequest/DecodeRequest/
//             EncodeResponse/DecodeResponse methods);
//   rpc     - the network core's prefixes (rpc::kCoreSymbolPrefixes: its
//             code and Asio's socket operations up to the syscall), reported
//             as rpc.core, and every transport entry's (each transport lives
//             in a namespace of its own), reported as rpc.transport;
//   region  - every region entry's prefixes and the Region base class;
//   harness - the load generator's own code: YCSB key/record building,
//             logical-client scheduling, latency recording;
// A function with no layer of its own (malloc, memcpy, std::, Asio
// internals, common/) takes its callers' layers, split in proportion to the
// inclusive cost of each caller's calls to it; a function nobody calls in
// the phase (thread entry, the event loop) is `other`. So the innermost
// layered function on the stack owns an instruction, nested entry points
// are never counted twice, and the layers sum to the total exactly.
// Instructions in the kernel (syscalls, page faults) are not counted.
//
// Thread-safety: free functions with no shared state.
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "bench/loadgen/driver.h"
#include "bench/results/instruction_figures.h"
#include "common/status.h"

namespace wirebench {

inline constexpr int64_t kDefaultInstructionOps = 20000;
// Fewer measured operations than this get a warning (ReRunUnderCallgrind):
// the measured phase's fixed client cost, measured at about 350,000
// instructions, is then over ~5% of a ~700-instruction harness op.
inline constexpr int64_t kMinInstructionOps = 10000;
inline constexpr int64_t kDefaultInstructionWarmupOps = 2000;
// Set in the re-executed process: the directory callgrind writes its dumps to.
inline constexpr char kCallgrindDirEnv[] = "WIREBENCH_CALLGRIND_DIR";
// Set (to anything) to keep callgrind's dump files for callgrind_annotate.
inline constexpr char kKeepCallgrindEnv[] = "WIREBENCH_KEEP_CALLGRIND";

// One callgrind output file written with --compress-strings=no and
// --compress-pos=no; only the first event (Ir) is read.
struct CallgrindProfile {
  struct Function {
    uint64_t self = 0;  // Instructions in the function itself.
    std::string file;   // Its source file (callgrind's fl=).
  };
  struct Call {
    std::string caller;
    std::string callee;
    uint64_t inclusive = 0;  // Instructions in the callee and below, for these calls.
  };
  std::string trigger;   // E.g. "Client Request: <label>" for an EndPhase dump.
  uint64_t totals = 0;   // The file's own `totals:` line.
  std::unordered_map<std::string, Function> functions;
  std::vector<Call> calls;  // One entry per caller/callee pair.
  uint64_t SelfSum() const;
};

StatusOr<CallgrindProfile> ParseCallgrindOutput(std::istream& in);
StatusOr<CallgrindProfile> ReadCallgrindFile(const std::string& path);

// The rpc layer is two: the network core's and the transport's.
enum class Layer { kCodec, kRpcCore, kRpcTransport, kRegion, kHarness, kOther };
inline constexpr int kLayers = 6;

// The layer a function belongs to by its own name or file; nullopt when it
// has none and takes its callers'.
std::optional<Layer> LayerOfFunction(std::string_view name);

// Instructions per operation of one side, by layer (see above).
LayerInstructions AttributeLayers(const CallgrindProfile& profile, uint64_t operations);

// The dump directory when this process is the re-executed one, else "".
std::string InstructionsModeDir();

// Runs this process's own command line again under callgrind (the server
// children it starts too), waits, and returns its exit code; 2 with the
// reason printed when Valgrind is missing or cannot start.
int RunSelfUnderCallgrind();

// This executable's path (a child started from it is followed by Valgrind,
// where one started through /proc/self/exe would run Valgrind's own binary).
std::string SelfExecutable();

// Runs `ops` unmeasured operations (a fixed count, so every run warms up
// the same way), on their own connections, before the measured run.
Status RunInstructionWarmup(const DriverOptions& options, Workload* workload, int64_t ops);

// Reads the measured phase's dumps of this process and of the co-located
// server `server_pid` (0: not co-located, so its side is unavailable) from
// `dir`, deletes the dump files read, and returns the figures per operation.
// `server_missing` not empty: the server's closing Stats call (its dump of
// the measured phase) did not happen, for that reason; its newest dump is
// then an earlier phase's, so its side is unavailable, saying why.
// A warning when a side's instructions all fell in `other` (a binary
// without symbols: the layers cannot be told apart), else "".
std::string NoSymbolsWarning(const InstructionFigures& f);
InstructionFigures CollectInstructions(const std::string& dir, int server_pid,
                                       uint64_t operations,
                                       const std::string& server_missing = "");

}  // namespace wirebench
