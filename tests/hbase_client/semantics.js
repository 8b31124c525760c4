// HBase's client-API semantics through the unmodified npm client
// hbase-rpc-client@0.1.15, against `wirebench server --rpc hbase --region
// memstore --max-versions 3`: versions and timestamps, Get's options, each
// delete type, checkAndPut/checkAndDelete both ways, increments, a mixed
// Multi, forward and reversed scans with start/stop rows, each filter, and
// two tables kept apart (T and T + '_other').
// Every check prints one JSON line {"check":NAME,"ok":bool,"got":...,"want":...},
// then {"summary":{"checks":N,"failed":[names]}}. Exit status 0 when every
// check passed, 1 when one failed, 2 on a usage error or timeout.
//
// With --regions N (a server started with --regions-per-table N, N >= 4), only
// the checks of several regions per table: rows in four regions, Gets, a
// Multi and scans across them.
//
// With --large-scans N[,N...] as well, for each N: N rows spread evenly over
// the key space (so over every region) written with mput, then scanned forward
// and reversed with caching 1000; every row must come back, in order. The
// client re-arms setTimeout(close, ttl) on each ScanResponse, so a server
// that leaves `ttl` out of a continuing scan's answers loses rows here.
//
// Usage: node semantics.js --zookeeper HOST:PORT[/ROOT] [--table T] [--timeout-ms MS]
//        [--regions N [--large-scans N[,N...]]]
'use strict';

const hbase = require('hbase-rpc-client');
const FilterList = require('hbase-rpc-client/lib/filter-list');

const o = {table: 'semantics', timeoutMs: 60000, zookeeper: null, regions: 0, largeScans: []};
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
  if (argv[i] === '--zookeeper') o.zookeeper = argv[i + 1];
  else if (argv[i] === '--table') o.table = argv[i + 1];
  else if (argv[i] === '--timeout-ms') o.timeoutMs = parseInt(argv[i + 1], 10);
  else if (argv[i] === '--regions') o.regions = parseInt(argv[i + 1], 10);
  else if (argv[i] === '--large-scans') o.largeScans = argv[i + 1].split(',').map(Number);
  else {
    process.stderr.write('semantics.js: unknown argument ' + argv[i] + '\n' +
                         'usage: node semantics.js --zookeeper HOST:PORT[/ROOT] [--table T]\n');
    process.exit(2);
  }
}
if (!o.zookeeper) {
  process.stderr.write('semantics.js: --zookeeper is required\n');
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
                      rpcTimeout: o.timeoutMs, callTimeout: 10000, tcpNoDelay: true});
client.on('error', (err) => {
  print({error: 'client error: ' + String(err && err.stack || err)});
  process.exit(1);
});

const T = o.table;
const CF = 'cf';
const call = (f) => new Promise((resolve, reject) => f((err, res) => err ? reject(err) : resolve(res)));
const put = (row, q, v, ts) => {
  const p = new hbase.Put(row);
  p.add(CF, q, v, ts);
  return call((cb) => client.put(T, p, cb));
};
// A Get's (or a scanned row's) cells as "q@ts=value" (or "q=value" with noTs).
function cells(res, noTs) {
  if (!res || !res.columns) return [];
  return res.columns.map((c) => c.qualifier.toString() + (noTs ? '' : '@' + String(c.timestamp)) +
                                 '=' + c.value.toString());
}
const get = (row, opts = {}) => {
  const g = new hbase.Get(row);
  if (opts.columns) opts.columns.forEach((q) => g.addColumn(CF, q));
  if (opts.maxVersions) g.setMaxVersions(opts.maxVersions);
  if (opts.timeRange) g.setTimeRange(opts.timeRange[0], opts.timeRange[1]);
  return call((cb) => client.get(T, g, cb));
};
const del = (row, build) => {
  const d = new hbase.Delete(row);
  if (build) build(d);
  return call((cb) => client.delete(T, d, cb));
};
const scan = (start, stop, setup) => {
  const s = client.getScanner(T, start, stop);
  if (setup) setup(s);
  return call((cb) => s.toArray(cb));
};
const rowsOf = (results) => results.map((r) => r.row.toString());
const counter = (res) => {
  const c = res && res.result && res.result.cell && res.result.cell[0];
  return c ? Number(c.value.toBuffer().readBigInt64BE(0)) : null;
};
const bin = (v) => ({binaryComparator: {comparable: {value: v}}});
const cmpFilter = (kind, op, comparator) => ({[kind]: {compareFilter: {compareOp: op, comparator}}});

const results = [];
let failed_call = false;
function check(name, got, want) {
  const ok = JSON.stringify(got) === JSON.stringify(want);
  results.push({name, ok});
  print({check: name, ok, got, want});
}

async function regions() {
  const rows = ['10', '50', '90', 'd0'];  // One in each of HexStringSplit's four quarters.
  for (const r of rows) await put(r, 'q', 'at-' + r);
  const got = [];
  for (const r of rows) got.push(cells(await get(r), true).join());
  check('a get in each region', got, rows.map((r) => 'q=at-' + r));
  const multi = await call((cb) => client.mget(T, rows, cb));
  check('a multi over four regions', multi.map((r) => r && r.row ? r.row.toString() : null).sort(), rows);
  check('a scan across regions', rowsOf(await scan('0', 'e')), rows);
  check('a scan from the second region on', rowsOf(await scan('4', '')), rows.slice(1));
  check('a reversed scan across regions', rowsOf(await scan('e', '', (s) => s.setReversed())),
        rows.slice().reverse());
  for (const n of o.largeScans) await largeScan(n);
}

// n rows, 8 hex digits each, evenly over [00000000, ffffffff], in their own
// table; scanned whole both ways with caching 1000.
async function largeScan(n) {
  const table = T + '_large_' + n;
  const keys = [];
  for (let i = 0; i < n; ++i)
    keys.push(Math.floor(i * (0x100000000 / n)).toString(16).padStart(8, '0'));
  for (let at = 0; at < n; at += 1000) {
    const puts = keys.slice(at, at + 1000).map((k) => {
      const p = new hbase.Put(k);
      p.add(CF, 'q', 'v');
      return p;
    });
    await call((cb) => client.mput(table, puts, cb));
  }
  const whole = async (reversed) => {
    const s = client.getScanner(table, reversed ? 'g' : '', '');
    s.numCached = 1000;
    if (reversed) s.setReversed();
    const got = rowsOf(await call((cb) => s.toArray(cb)));
    const want = reversed ? keys.slice().reverse() : keys;
    // The counts and whether every row came in order, not 100,000 keys.
    return {rows: got.length, in_order: JSON.stringify(got) === JSON.stringify(want)};
  };
  check('a ' + n + '-row scan with caching 1000 over every region', await whole(false),
        {rows: n, in_order: true});
  check('a ' + n + '-row reversed scan with caching 1000 over every region', await whole(true),
        {rows: n, in_order: true});
}

async function main() {
  if (o.regions > 0) return regions();
  // ---- Versions and timestamps (the server keeps 3 per column) ----
  for (let ts = 1; ts <= 4; ++ts) await put('ver', 'q', 'v' + ts, ts);
  check('get newest version', cells(await get('ver')), ['q@4=v4']);
  check('get max_versions keeps the newest three', cells(await get('ver', {maxVersions: 10})),
        ['q@4=v4', 'q@3=v3', 'q@2=v2']);
  check('get time_range [2,4)', cells(await get('ver', {maxVersions: 10, timeRange: [2, 4]})),
        ['q@3=v3', 'q@2=v2']);
  await put('ver', 'q', 'late', 3);
  check('a put at an existing timestamp replaces it', cells(await get('ver', {maxVersions: 2, timeRange: [0, 4]})),
        ['q@3=late', 'q@2=v2']);
  const before = Date.now();
  await put('clock', 'q', 'now');
  const clock = await get('clock');
  const ts = clock ? Number(String(clock.columns[0].timestamp)) : 0;
  check('LATEST_TIMESTAMP takes the server clock', ts >= before - 1000 && ts <= Date.now() + 1000, true);

  // ---- Get: columns, families, empty rows ----
  await put('cols', 'a', '1');
  await put('cols', 'b', '2');
  check('get one column', cells(await get('cols', {columns: ['b']}), true), ['b=2']);
  check('get whole row', cells(await get('cols'), true), ['a=1', 'b=2']);
  check('get empty row', await get('no-such-row'), null);

  // ---- Deletes ----
  for (let ts = 1; ts <= 3; ++ts) await put('del', 'q', 'v' + ts, ts);
  await del('del', (d) => d.deleteColumn(CF, 'q', 2));
  check('delete one version at a timestamp', cells(await get('del', {maxVersions: 5})), ['q@3=v3', 'q@1=v1']);
  await del('del', (d) => d.deleteColumn(CF, 'q'));
  check('delete the latest version', cells(await get('del', {maxVersions: 5})), ['q@1=v1']);
  await put('del', 'r', 'x', 5);
  await put('del', 'r', 'y', 6);
  await del('del', (d) => d.deleteColumns(CF, 'r'));
  check('delete all versions of a column', cells(await get('del', {maxVersions: 5})), ['q@1=v1']);
  await del('del', (d) => d.deleteColumns(CF, 'm', 100));
  await put('del', 'm', 'old', 50);
  check('a column delete masks older puts', cells(await get('del', {columns: ['m']})), []);
  await put('del', 'm', 'new', 150);
  check('a newer put shows', cells(await get('del', {columns: ['m']})), ['m@150=new']);
  await del('del', (d) => d.deleteFamily(CF));
  check('delete a family', await get('del'), null);
  await put('dfv', 'a', 'a10', 10);
  await put('dfv', 'a', 'a20', 20);
  await put('dfv', 'b', 'b10', 10);
  await del('dfv', (d) => d.deleteFamilyVersion(CF, 10));
  check('delete a family version (every column at one timestamp)',
        cells(await get('dfv', {maxVersions: 5})), ['a@20=a20']);
  await put('dfv', 'b', 'again', 10);
  check('a family version delete masks a later put at its timestamp',
        cells(await get('dfv', {maxVersions: 5})), ['a@20=a20']);
  await put('delrow', 'a', '1');
  await del('delrow');
  check('delete a row', await get('delrow'), null);

  // ---- checkAndPut / checkAndDelete ----
  const cp = (row, q, expected, v) => {
    const p = new hbase.Put(row);
    p.add(CF, 'q', v);
    return call((cb) => client.checkAndPut(T, row, CF, q, expected, p, cb));
  };
  check('checkAndPut on an absent cell', (await cp('cap', 'q', null, 'first')).processed, true);
  check('checkAndPut absent, cell present', (await cp('cap', 'q', null, 'second')).processed, false);
  check('checkAndPut with the wrong value', (await cp('cap', 'q', 'nope', 'second')).processed, false);
  check('checkAndPut with the right value', (await cp('cap', 'q', 'first', 'second')).processed, true);
  check('checkAndPut wrote', cells(await get('cap'), true), ['q=second']);
  const cd = (expected) => call((cb) => client.checkAndDelete(T, 'cap', CF, 'q', expected,
                                                              new hbase.Delete('cap'), cb));
  check('checkAndDelete with the wrong value', (await cd('first')).processed, false);
  check('checkAndDelete with the right value', (await cd('second')).processed, true);
  check('checkAndDelete deleted', await get('cap'), null);

  // ---- Increment ----
  const inc = (by) => {
    const i = new hbase.Increment('ctr');
    i.add(CF, 'n', by);
    return call((cb) => client.increment(T, i, cb));
  };
  check('increment from 0', counter(await inc(5)), 5);
  check('increment again', counter(await inc(7)), 12);

  // ---- Multi with mixed actions ----
  const mp = new hbase.Put('multi1');
  mp.add(CF, 'q', 'm1');
  mp.method = 'put';
  const mg = new hbase.Get('cols');
  mg.method = 'get';
  const md = new hbase.Delete('ver');
  md.method = 'delete';
  const multi = await call((cb) => client.processBatch(T, [mp, mg, md], cb));
  check('multi: one result per action', multi.length, 3);
  check('multi: the get answered', cells(multi.find((r) => r && r.row && r.row.toString() === 'cols'), true),
        ['a=1', 'b=2']);
  check('multi: the put applied', cells(await get('multi1'), true), ['q=m1']);
  check('multi: the delete applied', await get('ver'), null);

  // ---- Scans ----
  for (let i = 0; i < 6; ++i) {
    const p = new hbase.Put('s' + i);
    p.add(CF, 'name', 'n' + i);
    p.add(CF, 'k' + (i % 2), i % 2 ? 'odd' : 'even');
    await call((cb) => client.put(T, p, cb));
  }
  check('scan [s1, s4)', rowsOf(await scan('s1', 's4')), ['s1', 's2', 's3']);
  check('reversed scan from s4 down to s1 (exclusive)', rowsOf(await scan('s4', 's1', (s) => s.setReversed())),
        ['s4', 's3', 's2']);
  check('reversed scan of s*', rowsOf(await scan('s5', 'r', (s) => s.setReversed())),
        ['s5', 's4', 's3', 's2', 's1', 's0']);
  const filtered = (f, start = 's0', stop = 's9') => scan(start, stop, (s) => s.setFilter(f));
  check('PrefixFilter', rowsOf(await scan('', '', (s) => s.setFilter({prefixFilter: {prefix: 's'}}))),
        ['s0', 's1', 's2', 's3', 's4', 's5']);
  check('ColumnPrefixFilter', (await filtered({columnPrefixFilter: {prefix: 'k'}})).map((r) => cells(r, true).join()),
        ['k0=even', 'k1=odd', 'k0=even', 'k1=odd', 'k0=even', 'k1=odd']);
  const scvf = (v, ifMissing) => ({singleColumnValueFilter: {
    columnFamily: CF, columnQualifier: 'k1', compareOp: 'EQUAL', comparator: bin(v), filterIfMissing: ifMissing}});
  check('SingleColumnValueFilter (rows without the column kept)', rowsOf(await filtered(scvf('odd', false))),
        ['s0', 's1', 's2', 's3', 's4', 's5']);
  check('SingleColumnValueFilter filterIfMissing', rowsOf(await filtered(scvf('odd', true))), ['s1', 's3', 's5']);
  check('SingleColumnValueFilter no match', rowsOf(await filtered(scvf('none', true))), []);
  check('FirstKeyOnlyFilter', (await filtered({firstKeyOnlyFilter: {}}, 's0', 's2')).map((r) => cells(r, true)),
        [['k0=even'], ['k1=odd']]);
  check('KeyOnlyFilter', (await filtered({keyOnlyFilter: {lenAsVal: false}}, 's0', 's1')).map((r) => cells(r, true)),
        [['k0=', 'name=']]);
  check('PageFilter', rowsOf(await filtered({pageFilter: {pageSize: 2}})), ['s0', 's1']);
  check('RowFilter LESS BinaryComparator', rowsOf(await filtered(cmpFilter('rowFilter', 'LESS', bin('s2')))), ['s0', 's1']);
  check('RowFilter RegexStringComparator',
        rowsOf(await filtered(cmpFilter('rowFilter', 'EQUAL', {regexStringComparator: {pattern: '[24]$', patternFlags: 0, charset: 'UTF-8'}}))),
        ['s2', 's4']);
  check('QualifierFilter BinaryPrefixComparator',
        (await filtered(cmpFilter('qualifierFilter', 'EQUAL', {binaryPrefixComparator: {comparable: {value: 'na'}}}), 's0', 's2'))
          .map((r) => cells(r, true)), [['name=n0'], ['name=n1']]);
  check('ValueFilter', rowsOf(await filtered(cmpFilter('valueFilter', 'EQUAL', bin('n3')))), ['s3']);
  check('FamilyFilter', rowsOf(await filtered(cmpFilter('familyFilter', 'NOT_EQUAL', bin(CF)))), []);
  const all = new FilterList('MUST_PASS_ALL');
  all.addFilter({prefixFilter: {prefix: 's'}});
  const one = new FilterList('MUST_PASS_ONE');
  one.addFilter(cmpFilter('valueFilter', 'EQUAL', bin('n1')));
  one.addFilter(cmpFilter('valueFilter', 'EQUAL', bin('n4')));
  all.addFilter(one);
  check('FilterList MUST_PASS_ALL with a nested MUST_PASS_ONE',
        (await filtered(all)).map((r) => r.row.toString() + ':' + cells(r, true).join()), ['s1:name=n1', 's4:name=n4']);
  let unknown = null;
  try {
    // FilterWrapper: a filter the client can send that wirebench does not evaluate.
    await filtered({filterWrapper: {filter: {name: 'org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter',
                                             serializedFilter: Buffer.alloc(0)}}});
  } catch (e) {
    // The client hands back HBase's ExceptionResponse.
    unknown = e && e.exceptionClassName ? e.exceptionClassName + ': ' + e.stackTrace
                                        : String(e && e.message || e);
  }
  check('an unknown filter is refused with DoNotRetryIOException naming it',
        unknown !== null && unknown.startsWith('org.apache.hadoop.hbase.DoNotRetryIOException: ') &&
            unknown.includes('java.lang.ClassNotFoundException: org.apache.hadoop.hbase.filter.FilterWrapper'),
        true);
  if (unknown === null || !unknown.includes('FilterWrapper')) print({unknown_filter_error: unknown});

  // ---- Two tables: each its own store ----
  const T2 = T + '_other';
  const p2 = new hbase.Put('cols');
  p2.add(CF, 'a', 'other');
  await call((cb) => client.put(T2, p2, cb));
  const get2 = (row) => call((cb) => client.get(T2, new hbase.Get(row), cb));
  check('a put to the second table is read back from it', cells(await get2('cols'), true), ['a=other']);
  check('the first table keeps its own row', cells(await get('cols'), true), ['a=1', 'b=2']);
  check("the second table does not see the first table's rows", await get2('multi1'), null);
  const all2 = await call((cb) => client.getScanner(T2, '', '').toArray(cb));
  check('a scan of the second table sees only its rows', rowsOf(all2), ['cols']);
  await call((cb) => client.delete(T2, new hbase.Delete('cols'), cb));
  check('a row delete in the second table', await get2('cols'), null);
  check('leaves the first table', cells(await get('cols'), true), ['a=1', 'b=2']);
}

client.on('ready', async () => {
  try {
    await main();
  } catch (e) {
    print({error: 'a call failed: ' + String(e && e.stack || e)});
    failed_call = true;
  }
  const failed = results.filter((r) => !r.ok).map((r) => r.name);
  if (failed_call) failed.push('a call failed');
  print({summary: {checks: results.length, failed}});
  clearTimeout(timer);
  process.exit(failed.length ? 1 : 0);
});
