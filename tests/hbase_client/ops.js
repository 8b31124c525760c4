// Drives wirebench's HBase-protocol server with the unmodified npm client
// hbase-rpc-client (installed by `npm ci` in this folder): it finds the
// server through ZooKeeper (meta-region-server), scans hbase:meta for the
// table's region, then runs every operation kind the client has, N times
// each where it takes one row (or once over N rows), in order:
//   put, get, mput, mget, delete, mdelete, scan, checkAndPut, increment
// and prints one JSON object per line for each kind:
//   {"op":"put","calls":N,"ok":N,"errors":[],"sample":<what the client returned>}
// then {"summary":{"ok":true|false,"ops":{...}}}. Exit status 0 when every
// call succeeded, 1 when one failed, 2 on a usage error or timeout.
//
// Usage: node ops.js --zookeeper HOST:PORT[,HOST:PORT...][/ROOT] [--table T] [--n N]
//        [--only put,get,...] [--timeout-ms MS]
'use strict';

const hbase = require('hbase-rpc-client');

function parseArgs(argv) {
  const o = {table: 'usertable', n: 10, only: null, timeoutMs: 60000, zookeeper: null};
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const v = argv[i + 1];
    if (a === '--zookeeper') o.zookeeper = v;
    else if (a === '--table') o.table = v;
    else if (a === '--n') o.n = parseInt(v, 10);
    else if (a === '--only') o.only = v.split(',');
    else if (a === '--timeout-ms') o.timeoutMs = parseInt(v, 10);
    else usage('unknown argument ' + a);
    ++i;
  }
  if (!o.zookeeper) usage('--zookeeper is required');
  if (!(o.n >= 1)) usage('--n must be at least 1');
  return o;
}

function usage(why) {
  process.stderr.write('ops.js: ' + why + '\nusage: node ops.js --zookeeper HOST:PORT[/ROOT] ' +
                       '[--table T] [--n N] [--only put,get,...] [--timeout-ms MS]\n');
  process.exit(2);
}

const o = parseArgs(process.argv.slice(2));
const slash = o.zookeeper.indexOf('/');
const quorum = slash < 0 ? o.zookeeper : o.zookeeper.slice(0, slash);
const root = slash < 0 ? '/hbase' : o.zookeeper.slice(slash);

const timer = setTimeout(() => {
  print({error: 'timed out after ' + o.timeoutMs + ' ms'});
  process.exit(2);
}, o.timeoutMs);

function print(obj) { process.stdout.write(JSON.stringify(obj) + '\n'); }

// What the client handed back, in JSON (Buffers as strings).
function plain(x) {
  return JSON.parse(JSON.stringify(x === undefined ? null : x, (k, v) => {
    if (v && v.type === 'Buffer' && Array.isArray(v.data)) return Buffer.from(v.data).toString();
    return v;
  }));
}

const client = hbase({
  zookeeperHosts: quorum.split(','),
  zookeeperRoot: root,
  rpcTimeout: o.timeoutMs,
  callTimeout: 10000,
  tcpNoDelay: true,
});
client.on('error', (err) => {
  print({error: 'client error: ' + String(err && err.stack || err)});
  process.exit(1);
});

const row = (i) => 'row' + String(i).padStart(6, '0');
const cf = 'family';

// Each kind: a list of calls, each (cb) => client.x(..., cb).
const kinds = {
  put: () => range(o.n).map((i) => (cb) => {
    const p = new hbase.Put(row(i));
    p.add(cf, 'field0', 'value-' + i);
    client.put(o.table, p, cb);
  }),
  get: () => range(o.n).map((i) => (cb) => client.get(o.table, new hbase.Get(row(i)), cb)),
  mput: () => [(cb) => client.mput(o.table, range(o.n).map((i) => {
    const p = new hbase.Put(row(i));
    p.add(cf, 'field1', 'mvalue-' + i);
    return p;
  }), cb)],
  mget: () => [(cb) => client.mget(o.table, range(o.n).map(row), cb)],
  delete: () => range(o.n).map((i) => (cb) => client.delete(o.table, new hbase.Delete(row(i)), cb)),
  mdelete: () => [(cb) => client.mdelete(o.table, range(o.n).map(row), cb)],
  scan: () => [(cb) => client.getScanner(o.table, row(0), row(o.n)).toArray(cb)],
  checkAndPut: () => range(o.n).map((i) => (cb) => {
    const p = new hbase.Put(row(i));
    p.add(cf, 'field2', 'checked-' + i);
    // Against an empty row: the expected value null means "the cell is absent".
    client.checkAndPut(o.table, row(i), cf, 'field2', null, p, cb);
  }),
  increment: () => range(o.n).map((i) => (cb) => {
    const inc = new hbase.Increment(row(i));
    inc.add(cf, 'counter', 5);
    client.increment(o.table, inc, cb);
  }),
};

// An Increment's result: the counter cell's 8-byte big-endian value.
function counter(res) {
  const cell = res && res.result && res.result.cell && res.result.cell[0];
  if (!cell) return {counter: null};
  const b = cell.value.toBuffer();
  return {counter: b.length === 8 ? Number(b.readBigInt64BE(0)) : null};
}

function range(n) { return Array.from({length: n}, (_, i) => i); }

const order = (o.only || Object.keys(kinds)).filter((k) => {
  if (!kinds[k]) usage('unknown operation ' + k + ' (one of ' + Object.keys(kinds).join(',') + ')');
  return true;
});

client.on('ready', async () => {
  const summary = {ok: true, ops: {}};
  for (const kind of order) {
    const calls = kinds[kind]();
    const out = {op: kind, calls: calls.length, ok: 0, errors: [], sample: null};
    for (const call of calls) {  // One at a time: the server's counts map to calls.
      await new Promise((resolve) => call((err, res) => {
        if (err) {
          out.errors.push(String(err && err.message || err));
        } else {
          ++out.ok;
          if (out.sample === null) out.sample = kind === 'increment' ? counter(res) : plain(res);
        }
        resolve();
      }));
    }
    print(out);
    summary.ops[kind] = {calls: out.calls, ok: out.ok};
    if (out.errors.length) summary.ok = false;
  }
  print({summary});
  clearTimeout(timer);
  process.exit(summary.ok ? 0 : 1);
});
