// The unmodified npm client hbase-rpc-client@0.1.15 against a null cluster
// of wirebench servers (each region on the server hbase:meta names): it
// finds server 0 through ZooKeeper (meta-region-server), learns every
// region's server from hbase:meta and connects to each server on its own.
// N rows "user0000".. (N at most 10,000, spread over YCSB's key space and so
// over every region of a cluster split at YCSB's points), then:
//   - a put of each row, then a get of each, 32 calls in flight;
//   - mput and mget in batches of 1000 (a Multi per server per batch);
//   - whole-table scans forward and reversed, and a scan of the middle half
//     both ways, with caching 1000: every row once, in order;
//   - the client's own view: the regions it cached and the servers it
//     connected to (--servers of them).
// Every check prints {"check":NAME,"ok":bool,"got":...,"want":...}, then
// {"summary":{"checks":N,"failed":[names]}}. Exit status 0 when every check
// passed, 1 when one failed, 2 on a usage error or timeout.
//
// Usage: node cluster.js --zookeeper HOST:PORT[/ROOT] --servers K [--table T]
//        [--rows N] [--regions R] [--timeout-ms MS]
'use strict';

const hbase = require('hbase-rpc-client');

const o = {table: 'cluster', rows: 10000, servers: 0, regions: 0, timeoutMs: 240000,
           zookeeper: null};
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
  const v = argv[i + 1];
  if (argv[i] === '--zookeeper') o.zookeeper = v;
  else if (argv[i] === '--table') o.table = v;
  else if (argv[i] === '--rows') o.rows = parseInt(v, 10);
  else if (argv[i] === '--servers') o.servers = parseInt(v, 10);
  else if (argv[i] === '--regions') o.regions = parseInt(v, 10);
  else if (argv[i] === '--timeout-ms') o.timeoutMs = parseInt(v, 10);
  else usage('unknown argument ' + argv[i]);
}
if (!o.zookeeper) usage('--zookeeper is required');
if (!(o.servers >= 1)) usage('--servers must be at least 1');
if (!(o.rows >= 4 && o.rows <= 10000)) usage('--rows must be 4 to 10000');

function usage(why) {
  process.stderr.write('cluster.js: ' + why + '\nusage: node cluster.js ' +
                       '--zookeeper HOST:PORT[/ROOT] --servers K [--table T] [--rows N] ' +
                       '[--regions R] [--timeout-ms MS]\n');
  process.exit(2);
}

const slash = o.zookeeper.indexOf('/');
const quorum = slash < 0 ? o.zookeeper : o.zookeeper.slice(0, slash);
const root = slash < 0 ? '/hbase' : o.zookeeper.slice(slash);

function print(obj) { process.stdout.write(JSON.stringify(obj) + '\n'); }
const timer = setTimeout(() => {
  print({error: 'timed out after ' + o.timeoutMs + ' ms'});
  process.exit(2);
}, o.timeoutMs);

const client = hbase({zookeeperHosts: quorum.split(','), zookeeperRoot: root,
                      rpcTimeout: o.timeoutMs, callTimeout: 30000, tcpNoDelay: true});
client.on('error', (err) => {
  print({error: 'client error: ' + String(err && err.stack || err)});
  process.exit(1);
});

const T = o.table;
const CF = 'cf';
const call = (f) => new Promise((resolve, reject) =>
  f((err, res) => err ? reject(err) : resolve(res)));
// Row i of N, spread evenly over user0000..user9999.
const key = (i) => 'user' + String(Math.floor(i * 10000 / o.rows)).padStart(4, '0');
const keys = [];
for (let i = 0; i < o.rows; ++i) keys.push(key(i));

const results = [];
function check(name, got, want) {
  const ok = JSON.stringify(got) === JSON.stringify(want);
  results.push({name, ok});
  print({check: name, ok, got, want});
}

// Runs f(item) for every item, `width` at a time; the errors, at most 5.
async function inFlight(items, width, f) {
  const errors = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++];
      try {
        await f(item);
      } catch (e) {
        if (errors.length < 5) errors.push(String(e && e.stack || e));
      }
    }
  };
  await Promise.all(Array.from({length: width}, worker));
  return errors;
}

const value = (c) => (c && c.value ? c.value.toString() : null);

async function putsAndGets() {
  const putErrors = await inFlight(keys, 32, (k) => {
    const p = new hbase.Put(k);
    p.add(CF, 'q', 'v-' + k);
    return call((cb) => client.put(T, p, cb));
  });
  check('a put of each row', putErrors, []);
  let wrong = 0;
  const getErrors = await inFlight(keys, 32, async (k) => {
    const res = await call((cb) => client.get(T, new hbase.Get(k), cb));
    if (!res || value(res.cols[CF + ':q']) !== 'v-' + k) ++wrong;
  });
  check('a get of each row', {errors: getErrors, wrong}, {errors: [], wrong: 0});
}

async function multis() {
  let wrong = 0, answered = 0;
  for (let at = 0; at < keys.length; at += 1000) {
    const batch = keys.slice(at, at + 1000);
    await call((cb) => client.mput(T, batch.map((k) => ({row: k, [CF + ':m']: 'm-' + k})), cb));
    const got = await call((cb) => client.mget(T, batch, cb));
    answered += got.length;
    // The client hands back the answers server by server: by row here.
    const byRow = new Map(got.filter((r) => r && r.row).map((r) => [r.row.toString(), r]));
    for (const k of batch) {
      const r = byRow.get(k);
      const ok = r && value(r.cols[CF + ':m']) === 'm-' + k &&
                 value(r.cols[CF + ':q']) === 'v-' + k;
      if (!ok) ++wrong;
    }
  }
  check('mput and mget in batches of 1000', {answered, wrong}, {answered: keys.length, wrong: 0});
}

// A scan's rows: how many, and whether they are `want` in order.
async function scanned(start, stop, reversed, want) {
  const s = client.getScanner(T, start, stop);
  s.numCached = 1000;
  if (reversed) s.setReversed();
  const got = (await call((cb) => s.toArray(cb))).map((r) => r.row.toString());
  return {rows: got.length, in_order: JSON.stringify(got) === JSON.stringify(want)};
}

async function scans() {
  const n = keys.length;
  check('a forward scan of the whole table', await scanned('', '', false, keys),
        {rows: n, in_order: true});
  // A reversed scan starts at its start row: one above every key.
  check('a reversed scan of the whole table', await scanned('v', '', true, keys.slice().reverse()),
        {rows: n, in_order: true});
  const lo = Math.floor(n / 4), hi = Math.floor(3 * n / 4);
  check('a forward scan of the middle half',
        await scanned(keys[lo], keys[hi], false, keys.slice(lo, hi)),
        {rows: hi - lo, in_order: true});
  // Reversed from keys[hi] (included) down to keys[lo] (excluded).
  check('a reversed scan of the middle half',
        await scanned(keys[hi], keys[lo], true, keys.slice(lo + 1, hi + 1).reverse()),
        {rows: hi - lo, in_order: true});
}

function clientsView() {
  const regions = Object.values(client.cachedRegionLocations[T] || {});
  const servers = new Set(regions.map((r) => r.server.toString()));
  if (o.regions > 0)
    check('the regions the client cached from hbase:meta', regions.length, o.regions);
  check('the servers hbase:meta names', servers.size, o.servers);
  const connected = Object.keys(client.servers).filter((s) => servers.has(s));
  check('the servers the client connected to', connected.length, o.servers);
}

client.on('ready', async () => {
  let failedCall = false;
  try {
    await putsAndGets();
    await multis();
    await scans();
    clientsView();
  } catch (e) {
    print({error: 'a call failed: ' + String(e && e.stack || e)});
    failedCall = true;
  }
  const failed = results.filter((r) => !r.ok).map((r) => r.name);
  if (failedCall) failed.push('a call failed');
  print({summary: {checks: results.length, failed}});
  clearTimeout(timer);
  process.exit(failed.length ? 1 : 0);
});
