// Writes the seed corpora for the fuzz targets: valid encodings made by the
// project's own encoders (every codec, every method, requests and
// responses), framed call streams, preambles, and YCSB property text.
// Usage: wirebench_fuzz_seeds OUT_DIR [WORKLOADS_DIR]
// Creates OUT_DIR/<target>/seed-<n> for every fuzz target; the file format
// is the one each target reads (see the target's file comment).
#include <sys/stat.h>

#include <cstdio>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "codecs/codec.h"
#include "transports/wirebench/frame.h"

namespace wirebench::fuzz {
namespace {

class SeedWriter {
 public:
  SeedWriter(std::string root, std::string target) : dir_(root + "/" + target) {
    mkdir(root.c_str(), 0755);
    mkdir(dir_.c_str(), 0755);
  }
  bool Write(std::string_view bytes) {
    const std::string path = dir_ + "/seed-" + std::to_string(n_++);
    std::ofstream f(path, std::ios::binary);
    f.write(bytes.data(), std::streamsize(bytes.size()));
    return bool(f);
  }
  int count() const { return n_; }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  int n_ = 0;
};

// The logical content every codec is given (docs/design.md, "Codecs"), shrunk to keep
// seeds small: a row, one family, three fields.
struct Content {
  std::string row = "user6284781860667377211", row2 = "user6284781860667377299";
  std::string family = "family";
  std::vector<std::string> qualifiers = {"field0", "field1", "field2"};
  std::string value = std::string(24, 'v');
  std::string error = "region failed";
  std::vector<Cell> cells, deletes;
  std::vector<Column> columns;
  std::vector<Action> actions;
  std::vector<Result> results;
  std::vector<ActionResult> action_results;

  Content() {
    for (const std::string& q : qualifiers) {
      cells.push_back({ByteView(row), ByteView(family), ByteView(q), 1234567, CellType::kPut,
                       ByteView(value)});
      deletes.push_back(
          {ByteView(row), ByteView(family), ByteView(q), 0, CellType::kDeleteColumn, ByteView()});
      columns.push_back({ByteView(family), ByteView(q)});
    }
    columns.push_back({ByteView(family), ByteView()});
    Action put;
    put.index = 0;
    put.kind = ActionKind::kMutation;
    put.mutation = Mutation{ByteView(row), MutationType::kPut, 0, cells};
    Action get;
    get.index = 1;
    get.kind = ActionKind::kGet;
    get.get = GetRequest();
    get.get.row = ByteView(row2);
    get.get.columns = columns;
    Action del;
    del.index = 2;
    del.kind = ActionKind::kMutation;
    del.mutation = Mutation{ByteView(row2), MutationType::kDelete, 99, deletes};
    actions = {put, get, del};
    results = {Result{cells, true}, Result{{}, false}};
    ActionResult ok;
    ok.index = 0;
    ok.result = Result{cells, true};
    ActionResult failed;
    failed.index = 1;
    failed.ok = false;
    failed.error = ByteView(error);
    action_results = {ok, failed, ActionResult{2, true, Result{{}, true}, ByteView()}};
  }
};

GetRequest MakeGet(ByteView row, std::span<const Column> columns) {
  GetRequest g;
  g.row = row;
  g.columns = columns;
  return g;
}

ScanRequest MakeScan(ByteView start, ByteView stop, uint32_t rows, std::span<const Column> columns) {
  ScanRequest s;
  s.start_row = start;
  s.stop_row = stop;
  s.number_of_rows = rows;
  s.columns = columns;
  return s;
}

// One seed: the method index byte, then the message as `codec` encodes it
// (as a request or a response, by the message's type).
template <typename Message>
int WriteMessage(Codec* codec, uint8_t method_index, const Message& m, SeedWriter* w) {
  ByteBuffer b;
  b.PushBack(method_index);
  Status s = EncodeMessage(*codec, 42, m, &b);
  if (!s.ok()) {
    std::fprintf(stderr, "%s: cannot encode seed %d of %s: %s\n",
                 std::string(codec->name()).c_str(), w->count(), w->dir().c_str(),
                 s.ToString().c_str());
    return 1;
  }
  return w->Write(b.view().str()) ? 0 : 1;
}

int WriteCodecSeeds(const std::string& root) {
  const Content c;
  int errors = 0;
  for (const CodecInfo* entry : Codecs()) {
    const CodecInfo& info = *entry;
    std::unique_ptr<Codec> codec = info.factory();
    std::string name(info.name());
    for (char& ch : name)
      if (ch == '-') ch = '_';
    SeedWriter rq(root, "fuzz_codec_" + name + "_request");
    errors +=
        WriteMessage(codec.get(), 0,
                     MutateRequest{Mutation{ByteView(c.row), MutationType::kPut, 0, c.cells}}, &rq);
    errors +=
        WriteMessage(codec.get(), 0,
                     MutateRequest{Mutation{ByteView(c.row), MutationType::kDelete, 7, {}}}, &rq);
    errors += WriteMessage(codec.get(), 1, MakeGet(ByteView(c.row), {}), &rq);
    errors += WriteMessage(codec.get(), 1, MakeGet(ByteView(c.row), c.columns), &rq);
    errors += WriteMessage(codec.get(), 2,
                           MakeScan(ByteView(c.row), ByteView(c.row2), 10, c.columns), &rq);
    errors += WriteMessage(codec.get(), 3, MultiRequest{c.actions}, &rq);
    SeedWriter rs(root, "fuzz_codec_" + name + "_response");
    errors += WriteMessage(codec.get(), 0, MutateResponse{true}, &rs);
    errors += WriteMessage(codec.get(), 1, GetResponse{Result{c.cells, true}}, &rs);
    errors += WriteMessage(codec.get(), 1, GetResponse{Result{{}, false}}, &rs);
    errors += WriteMessage(codec.get(), 2, ScanResponse{c.results, true}, &rs);
    errors += WriteMessage(codec.get(), 3, MultiResponse{c.action_results}, &rs);
  }
  return errors;
}

int WriteFrameSeeds(const std::string& root) {
  SeedWriter w(root, "fuzz_frame");
  int errors = 0;
  // Two control bytes (split point, maximum), then a stream of frames.
  for (uint8_t max_index : {0, 4}) {
    ByteBuffer b;
    b.PushBack(17);
    b.PushBack(max_index);
    for (uint32_t id = 1; id <= 3; ++id) {
      size_t off = wbrpc::BeginFrame(&b, id, uint8_t(Method::kPing), 0, uint16_t(id));
      b.Append(ByteView(std::string(id * 10, 'p')));
      wbrpc::EndFrame(&b, off);
    }
    errors += !w.Write(b.view().str());
  }
  ByteBuffer err;
  err.PushBack(3);
  err.PushBack(0);
  wbrpc::AppendErrorFrame(&err, 0, 0, CallStatus::kBadPreamble, "bad preamble");
  errors += !w.Write(err.view().str());
  return errors;
}

int WritePreambleSeeds(const std::string& root) {
  SeedWriter w(root, "fuzz_preamble");
  int errors = 0;
  for (const CodecInfo* info : Codecs()) {
    ByteBuffer b;
    wbrpc::WritePreamble(uint8_t(info->id), &b);
    errors += !w.Write(b.view().str());
  }
  errors += !w.Write("WBNC\x01\x01\x00");
  errors += !w.Write("GET / HTTP/1.1\r\n");
  return errors;
}

int WritePropertySeeds(const std::string& root, const std::string& workloads) {
  SeedWriter w(root, "fuzz_properties");
  int errors = 0;
  errors += !w.Write("recordcount=1000\noperationcount = 5000\nreadproportion: 0.5\n");
  errors += !w.Write("# comment\n! bang\nkey\\ with\\ spaces = a \\\n   continued\\u0041\n");
  errors += !w.Write("fieldcount=10\nfieldlength=100\nrequestdistribution=zipfian\n"
                     "measurement.interval=both\nhdrhistogram.percentiles=50,95,99\n");
  if (DIR* d = opendir(workloads.c_str())) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] == '.') continue;
      std::ifstream f(workloads + "/" + e->d_name, std::ios::binary);
      std::stringstream text;
      text << f.rdbuf();
      if (!text.str().empty()) errors += !w.Write(text.str());
    }
    closedir(d);
  }
  return errors;
}

}  // namespace

// hbase_seeds.cc: the seeds of fuzz_hbase_connection.
int WriteHBaseSeeds(const std::string& root);

}  // namespace wirebench::fuzz

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR [WORKLOADS_DIR]\n", argv[0]);
    return 2;
  }
  const std::string root = argv[1];
  const std::string workloads = argc > 2 ? argv[2] : "workloads";
  int errors = wirebench::fuzz::WriteCodecSeeds(root) + wirebench::fuzz::WriteFrameSeeds(root) +
               wirebench::fuzz::WritePreambleSeeds(root) +
               wirebench::fuzz::WritePropertySeeds(root, workloads) +
               wirebench::fuzz::WriteHBaseSeeds(root);
  if (errors != 0) {
    std::fprintf(stderr, "%d seeds could not be made\n", errors);
    return 1;
  }
  std::printf("seeds written under %s\n", root.c_str());
  return 0;
}
