#!/usr/bin/env bash
# Draws when a recurring schedule fires around a daylight-saving change, from the real output of
# `idem recurrence preview` (the same computation a create makes). The pictures in docs/scheduling.md came from:
#   docs/pictures/dst-week.sh 'FREQ=DAILY;BYHOUR=2;BYMINUTE=30' 2027-03-25T02:30:00 Europe/Paris 7 0
#   docs/pictures/dst-week.sh 'FREQ=DAILY;BYHOUR=2;BYMINUTE=30' 2027-10-28T02:30:00 Europe/Paris 7 0
#   docs/pictures/dst-week.sh 'FREQ=HOURLY' 2027-03-28T00:00:00 Europe/Paris 5 -
#   docs/pictures/dst-week.sh 'FREQ=HOURLY' 2027-10-31T00:00:00 Europe/Paris 5 -
# Arguments: rule, dtstart (local), time zone, count, and the first UTC hour of the axis (3 hours wide, one character
# per 10 minutes), or '-' for no axis. Needs the built jar (./idem builds it).
set -euo pipefail
rule=$1 dtstart=$2 zone=$3 count=$4 axis_from=$5
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
echo "$zone, $rule, dtstart $dtstart"
if [ "$axis_from" = "-" ]; then
  printf '%-20s %-26s %s\n' "local" "UTC" "hours since the previous one"
else
  printf '%-20s %-26s UTC %02d:00    %02d:00    %02d:00\n' "local" "UTC" "$axis_from" $((axis_from + 1)) $((axis_from + 2))
fi
"$root/idem" recurrence preview --rrule "$rule" --dtstart "$dtstart" --timezone "$zone" --count "$count" |
  awk -v from="$axis_from" '{
    local = $1; utc = $2
    split(substr(utc, 12, 5), hm, ":"); minutes = hm[1] * 60 + hm[2]
    day = substr(local, 1, 10); hl = substr(local, 12, 5)
    cmd = "date -u -d \"" substr(utc, 1, 19) "\" +%s"; cmd | getline epoch; close(cmd)
    wd = ""; cmd = "date -u -d \"" day "\" +%a"; cmd | getline wd; close(cmd)
    if (from == "-") {
      gap = (NR == 1) ? "" : sprintf("%.0f", (epoch - prev) / 3600)
      line = sprintf("%-20s %-26s %s", wd " " day " " hl, utc, gap); sub(/ +$/, "", line); print line
    } else {
      bar = ""
      for (i = 0; i < 18; i++) bar = bar ((i % 6 == 0) ? "|" : ".")
      pos = int((minutes - from * 60) / 10)
      if (pos >= 0 && pos < 18) bar = substr(bar, 1, pos) "#" substr(bar, pos + 2)
      printf "%-20s %-26s     %s\n", wd " " day " " hl, utc, bar
    }
    prev = epoch
  }'
