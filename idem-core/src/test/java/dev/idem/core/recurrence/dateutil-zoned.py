"""Regenerates dateutil-zoned.txt (python3 dateutil-zoned.py SEED; keep ~150, first 12 instants each). Needs python-dateutil 2.9.0."""
import random, signal, sys
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo
from dateutil.rrule import rrulestr
random.seed(int(sys.argv[1]))
class TO(Exception): pass
def handler(s, f): raise TO()
signal.signal(signal.SIGALRM, handler)
ZONES = {"America/New_York": ["2025-03-09", "2025-11-02"], "Europe/Paris": ["2025-03-30", "2025-10-26"], "Australia/Lord_Howe": ["2025-04-06", "2025-10-05"]}
DAYS = ["MO","TU","WE","TH","FR","SA","SU"]
def sub(vals, k): return random.sample(vals, random.randint(1, k))
n = 0
while n < 600:
    f = random.choice(["MINUTELY", "HOURLY", "DAILY", "WEEKLY"])
    parts = ["FREQ=" + f, "INTERVAL=%d" % random.choice([1, 1, 2, 3, 7, 15, 30])]
    if random.random() < 0.5: parts.append("BYHOUR=" + ",".join(map(str, sub(range(0, 5), 3))))
    if random.random() < 0.5: parts.append("BYMINUTE=" + ",".join(map(str, sub(range(0, 60), 3))))
    if random.random() < 0.2: parts.append("BYDAY=" + ",".join(sub(DAYS, 4)))
    r = ";".join(parts)
    zone = random.choice(list(ZONES))
    day = datetime.fromisoformat(random.choice(ZONES[zone]))
    start = day - timedelta(seconds=random.randint(0, 3 * 86400))
    start = start.replace(tzinfo=ZoneInfo(zone))
    signal.alarm(2)
    try:
        out = []
        for d in rrulestr(r, dtstart=start):
            out.append(d.astimezone(timezone.utc))
            if len(out) >= 60: break
        signal.alarm(0)
    except (TO, ValueError):
        signal.alarm(0)
        continue
    out = sorted(set(out))[:30]
    if len(out) < 30: continue
    print("%s|%s|%s|%s" % (r, start.replace(tzinfo=None).isoformat(), zone, ",".join(o.strftime("%Y-%m-%dT%H:%M:%SZ") for o in out)))
    n += 1
