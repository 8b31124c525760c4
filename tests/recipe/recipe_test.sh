#!/usr/bin/env bash
# The recipes of docs/design.md ("Adding a codec", "Adding a transport"),
# followed to the letter on a copy of the tree: a codec or a transport is its
# folder, its accessor's declaration and line in the registry's list, and one
# add_subdirectory. (ctest: Recipe.AToyCodecAndAToyTransportNeedOnlyTheirFoldersAndOneLineEach)
#
#   WIREBENCH_RECIPE_TEST=1 tests/recipe/recipe_test.sh SOURCE_DIR
#
# 1. Copies the files git tracks in SOURCE_DIR (as they are in the work tree:
#    no .git, no build directories) to a scratch directory.
# 2. Places tests/recipe/toy_codec/ at codecs/toy/ and
#    tests/recipe/toy_transport/ at transports/toy/, then makes the recipes'
#    edits elsewhere as text, each after an anchor line that must occur
#    exactly once: when a file changes shape, the test fails naming the file
#    and the anchor, so the recipe (and this script) are brought up to date.
# 3. Checks the layering rule on the copy (cmake/check_layering.cmake), then
#    configures it as small as it goes (Debug at -O0 without debug info, unity
#    build, no tests, benchmarks, gRPC, ZooKeeper or MPI; -Werror on, so a
#    warning in the toy sources fails) and builds the wirebench target only;
#    then compiles each toy source alone, as the default (non-unity) build
#    does, so none leans on its unity batch's includes.
# 4. Runs co-located YCSB workload A: --codec toy, --rpc toy --codec raw, and
#    both; each must exit 0, complete operations and say it used the toy
#    (the run's and the child server's lines); `run --help` must list both.
#
# Slow (a full build of the binary): skipped (exit 77, CTest's
# SKIP_RETURN_CODE) unless WIREBENCH_RECIPE_TEST=1. WIREBENCH_RECIPE_JOBS
# sets the build's parallelism (default 2); WIREBENCH_RECIPE_KEEP=1 keeps
# the scratch directory (its path is printed) to look into a failure.
set -euo pipefail

if [[ "${WIREBENCH_RECIPE_TEST:-}" != 1 ]]; then
  echo "recipe test skipped: it builds a copy of the whole tree (minutes);" \
       "run it with WIREBENCH_RECIPE_TEST=1 ctest -R Recipe --output-on-failure"
  exit 77
fi
if [[ $# -ne 1 ]]; then
  echo "usage: WIREBENCH_RECIPE_TEST=1 $0 SOURCE_DIR" >&2
  exit 2
fi

fail() {
  echo "recipe test FAILED: $*" >&2
  exit 1
}

src=$(cd "$1" && pwd)
recipe_dir=$src/tests/recipe
git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
  fail "$src is not a git work tree: the copy is of the files git tracks"

work=$(mktemp -d "${TMPDIR:-/tmp}/wirebench-recipe.XXXXXX")
cleanup() {
  if [[ "${WIREBENCH_RECIPE_KEEP:-}" == 1 ]]; then
    echo "recipe test: kept $work"
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
tree=$work/tree
build=$work/build
mkdir -p "$tree"
started=$SECONDS
step() { echo "== [$((SECONDS - started))s] $*"; }

# ---- 1. The tracked tree ---------------------------------------------------
step "copying the files git tracks in $src"
# A tracked file deleted in the work tree is left out (tar would stop at it).
(cd "$src" && git ls-files -z |
   while IFS= read -r -d '' f; do
     if [[ -e $f || -L $f ]]; then printf '%s\0' "$f"; fi
   done |
   tar --null -T - -cf -) | tar -C "$tree" -xf -
[[ -f $tree/CMakeLists.txt && -f $tree/codecs/codec_registry.cc ]] ||
  fail "the copy of $src has no CMakeLists.txt or codecs/codec_registry.cc"

# ---- 2. The recipes --------------------------------------------------------
step "placing the toy folders and making the recipes' edits"
for d in codecs/toy transports/toy; do
  [[ ! -e $tree/$d ]] || fail "$d already exists in the tree: the toy needs a free name"
done
# The toy codec's id (toy_codec.cc, toy_entry.cc) must be the next free one:
# two codecs with one id would share the preamble's codec byte.
taken=$({ grep -rlE 'CodecId\(8\)' "$tree/codecs" --include='*.cc' --include='*.h'
          grep -lE '^ *k[A-Za-z]+ = 8,' "$tree/codecs/codec.h"; } | tr '\n' ' ' || true)
if [[ -n $taken ]]; then
  fail "codec id 8 is taken (${taken//$tree\//}): give tests/recipe/toy_codec the next free id"
fi
cp -r "$recipe_dir/toy_codec" "$tree/codecs/toy"
cp -r "$recipe_dir/toy_transport" "$tree/transports/toy"

# insert_after FILE ANCHOR_REGEX LINE RECIPE: adds LINE after the one line of
# FILE matching ANCHOR_REGEX (an extended regex), indented as that line is.
insert_after() {
  local file=$1 anchor=$2 line=$3 recipe=$4 at
  at=$(grep -nE -- "$anchor" "$tree/$file" | cut -d: -f1 || true)
  if [[ $(wc -w <<<"$at") -ne 1 ]]; then
    fail "docs/design.md's \"$recipe\": the anchor /$anchor/ occurs $(wc -w <<<"$at")" \
         "times in $file (expected once). The file changed shape: check the recipe still" \
         "says where '$line' goes, and update the recipe and tests/recipe/recipe_test.sh" \
         "together."
  fi
  awk -v at="$at" -v line="$line" '
    { print }
    NR == at { match($0, /^[ \t]*/); print substr($0, 1, RLENGTH) line }
  ' "$tree/$file" >"$tree/$file.new"
  mv "$tree/$file.new" "$tree/$file"
  grep -qF -- "$line" "$tree/$file" ||
    fail "could not add '$line' to $file"
}
# FILE|ANCHOR_REGEX|LINE|RECIPE, one edit a row.
while IFS='|' read -r file anchor line recipe; do
  insert_after "$file" "$anchor" "$line" "$recipe"
done <<'EDITS'
codecs/CMakeLists.txt|^add_subdirectory\(raw\)$|add_subdirectory(toy)|Adding a codec
codecs/codec_registry.cc|^const CodecInfo& RawCodecEntry\(\);$|const CodecInfo& ToyCodecEntry();|Adding a codec
codecs/codec_registry.cc|^[ \t]*&RawCodecEntry\(\),$|&ToyCodecEntry(),|Adding a codec
transports/CMakeLists.txt|^add_subdirectory\(wirebench\)$|add_subdirectory(toy)|Adding a transport
transports/registry.cc|^const Transport& WirebenchTransport\(\);$|const Transport& ToyTransport();|Adding a transport
transports/registry.cc|^[ \t]*&WirebenchTransport\(\),$|&ToyTransport(),|Adding a transport
EDITS
# Every edit outside the two folders, as a diff against the source.
for f in codecs/CMakeLists.txt codecs/codec_registry.cc transports/CMakeLists.txt \
         transports/registry.cc; do
  diff -U0 --label "a/$f" --label "b/$f" "$src/$f" "$tree/$f" | grep -v '^@@' || true
done

# ---- 3. Layering, configure, build -----------------------------------------
step "checking the layering rule on the copy"
out=$(cmake -DSOURCE_DIR="$tree" -P "$tree/cmake/check_layering.cmake" 2>&1) ||
  fail "the toy folders break the layering rule:"$'\n'"$out"

step "configuring the copy"
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
# -O0 and no debug information: the binary is run for 200 operations, and
# compiling is all of this test's time. -Werror: a warning in the toy
# sources fails the test, as it fails CI's builds.
if ! out=$(timeout 300 cmake -S "$tree" -B "$build" "${generator[@]}" \
             -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 \
             -DWIREBENCH_UNITY_BUILD=ON -DWIREBENCH_WERROR=ON \
             -DWIREBENCH_BUILD_TESTS=OFF -DWIREBENCH_BUILD_BENCHMARKS=OFF \
             -DWIREBENCH_GRPC=OFF -DWIREBENCH_ZOOKEEPER=OFF \
             -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON 2>&1); then
  fail "configuring the copy failed:"$'\n'"$out"
fi

step "building the wirebench target (-j${WIREBENCH_RECIPE_JOBS:-2})"
if ! out=$(timeout 1800 cmake --build "$build" --target wirebench \
             -j "${WIREBENCH_RECIPE_JOBS:-2}" 2>&1); then
  echo "$out" | tail -n 60 >&2
  fail "building the copy with the toy codec and transport failed (the build's end is above)"
fi
wb=$build/bench/wirebench
[[ -x $wb ]] || fail "the build made no $wb"

# The unity build compiled the toy sources inside batches of their
# neighbours, whose includes and declarations they could lean on; the default
# build compiles each file alone. Each is compiled alone here too (syntax and
# warnings only), with its batch's command from compile_commands.json.
step "compiling each toy source on its own"
for f in "$tree"/codecs/toy/*.cc "$tree"/transports/toy/*.cc; do
  unity=$(grep -rlF "#include \"$f\"" "$build" --include='unity_*.cxx' | head -n 1 || true)
  [[ -n $unity ]] || continue  # Not batched: the build compiled it alone.
  command=$(grep -B1 -F "\"file\": \"$unity\"" "$build/compile_commands.json" |
            sed -n 's/^ *"command": "\(.*\)",$/\1/p' | sed 's/\\"/"/g; s/\\\\/\\/g')
  [[ -n $command ]] || fail "no compile command for $unity in $build/compile_commands.json"
  read -ra words <<<"$command"
  args=()
  for ((i = 0; i < ${#words[@]}; i++)); do
    case ${words[i]} in
      -o | -c) i=$((i + 1)) ;;
      *) args+=("${words[i]}") ;;
    esac
  done
  if ! out=$(cd "$build" && timeout 120 "${args[@]}" -fsyntax-only "$f" 2>&1); then
    fail "${f#"$tree"/} does not compile on its own, as the default build compiles it:"$'\n'"$out"
  fi
done

# ---- 4. The toys at work ---------------------------------------------------
step "checking that the help lists them"
help=$(timeout 30 "$wb" run --help) || fail "wirebench run --help failed"
grep -qE -- '--codec NAME.*[ ,]toy[,; ]' <<<"$help" ||
  fail "run --help's --codec does not list toy:"$'\n'"$(grep -- '--codec' <<<"$help")"
grep -qE -- '--rpc NAME.*[ ;]toy: ' <<<"$help" ||
  fail "run --help's --rpc does not list toy:"$'\n'"$(grep -- '--rpc' <<<"$help")"

# run_toy CODEC [RPC]: a co-located workload A of 200 operations (over the
# default transport, wirebench, when RPC is not given), from the copy's root
# (workloads/workloada is YCSB's relative path).
run_toy() {
  local codec=$1 rpc=${2:-} rc=0 out err
  local args=(run -P workloads/workloada --codec "$codec" ${rpc:+--rpc "$rpc"} --ops 200)
  local what="wirebench ${args[*]}"
  rpc=${rpc:-wirebench}
  step "$what"
  out=$(cd "$tree" && timeout 120 "$wb" "${args[@]}" 2>"$work/stderr") || rc=$?
  err=$(<"$work/stderr")
  [[ $rc -eq 0 ]] || fail "'$what' exited $rc:"$'\n'"$err"$'\n'"$out"
  grep -qE '^\[MEASURED\], Operations, [1-9][0-9]*$' <<<"$out" ||
    fail "'$what' reported no operations:"$'\n'"$out"
  grep -qE '^\[(READ|UPDATE)\], Return=OK, [1-9]' <<<"$out" ||
    fail "'$what' reported no successful reads or updates:"$'\n'"$out"
  grep -qF "wirebench run: codec=$codec rpc=$rpc " <<<"$err" ||
    fail "'$what' did not say it used codec=$codec rpc=$rpc:"$'\n'"$err"
  grep -qE "^wirebench server: rpc=$rpc .*codecs=\[[^]]*\<toy\>" <<<"$err" ||
    fail "the co-located server of '$what' did not say it serves rpc=$rpc and the toy codec:"$'\n'"$err"
  grep -E '^\[(MEASURED\], Operations|READ\], Return|UPDATE\], Return)' <<<"$out" | sed 's/^/   /'
}
run_toy toy
run_toy raw toy
run_toy toy toy

step "passed: the toy codec and transport needed their folders and one line each"
