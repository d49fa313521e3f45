#!/bin/bash
# issue 47's real-run check (docs/change-points.md#measurements): 20 s at 1000 GET/s; a side client sends DEBUG SLEEP 0.004 every 10 ms from second 10.
bin=$1; n=$2; tag=$3
redis-server --port 6391 --save '' --appendonly no --daemonize yes --enable-debug-command yes >/dev/null
sleep 0.5
found=0
for i in $(seq 1 $n); do
  out=${OUT:-/tmp/cp47}/$tag-$i; rm -rf $out
  $bin run "$(dirname "$0")/step.yaml" --out $out --listen '' --quiet --no-color >/dev/null 2>&1 &
  pid=$!
  sleep 11   # start-up and the 1000-record load phase take about a second
  ( end=$((SECONDS+12)); while [ $SECONDS -lt $end ] && kill -0 $pid 2>/dev/null; do redis-cli -p 6391 DEBUG SLEEP 0.004 >/dev/null; sleep 0.006; done ) &
  side=$!
  wait $pid; kill $side 2>/dev/null; wait $side 2>/dev/null
  hit=$(python3 -c "
import json,sys
s=json.load(open('$out/summary.json'))
ph=[p for p in s['phases'] if p['name']=='steady'][0]
cps=ph.get('change_points') or []
ok=[c for c in cps if c['op']=='read' and c['metric'] in ('p99','p50') and 7<=c['offset_seconds']<=13]
print('1' if ok else '0', ' '.join('%s %s +%.0fs p=%g'%(c['op'],c['metric'],c['offset_seconds'],c['p_value']) for c in cps))
")
  echo "$tag run $i: $hit"
  [ "${hit%% *}" = 1 ] && found=$((found+1))
done
echo "$tag: found $found of $n"
redis-cli -p 6391 shutdown nosave >/dev/null 2>&1
