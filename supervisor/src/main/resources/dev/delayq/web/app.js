// The delayq dashboard: polls the JSON API (/api/status and /api/series every 1.5 s, dead jobs,
// the forecast and the job browser's page every 5 s) and posts actions. Everything shown from the server goes in as
// text, never as HTML.
'use strict';
(function () {
  const WINDOW_SECONDS = 300;
  const FAST_MS = 1500;
  const SLOW_MS = 5000;
  const COLORS = {
    delayed: '#1f77b4', ready: '#ff7f0e', inFlight: '#2ca02c', dead: '#6a1b9a',
    succeeded: '#2e7d32', failed: '#c62828', retried: '#ef6c00', rescheduled: '#0277bd',
    p50: '#1f4e79', p99: '#c62828', forecast: '#5c7cfa'
  };
  const $ = id => document.getElementById(id);
  // The API needs the token. `delayq-supervisor status` prints the URL with it after '#token='
  // (a fragment: never sent to the server, kept out of logs); it is kept for this tab only and
  // taken out of the address bar.
  const fromUrl = new URLSearchParams(location.hash.slice(1)).get('token');
  if (fromUrl) {
    sessionStorage.setItem('delayq-token', fromUrl);
    history.replaceState(null, '', location.pathname + location.search);
  }
  let token = sessionStorage.getItem('delayq-token') || '';
  // The queue the page shows and acts on (the picker, with several queues); '' is queue.name's.
  let queue = sessionStorage.getItem('delayq-queue') || '';
  let lastStatus = null;

  // ---- API -----------------------------------------------------------------------------------

  async function call(path, options) {
    options.headers = options.headers || {};
    if (token) options.headers.Authorization = 'Bearer ' + token;
    if (queue) path += (path.includes('?') ? '&' : '?') + 'queue=' + encodeURIComponent(queue);
    const r = await fetch(path, options);
    if (r.status === 404 && queue) {
      // a queue the system no longer serves (the config changed): back to its main queue
      queue = '';
      sessionStorage.removeItem('delayq-queue');
    }
    let body;
    try { body = await r.json(); } catch (e) { body = { ok: false, error: 'HTTP ' + r.status }; }
    if (r.status === 401) {
      $('token-form').hidden = false;
    }
    if (!r.ok || !body.ok) throw new Error(body.error || ('HTTP ' + r.status));
    return body;
  }

  function get(path) {
    return call(path, { cache: 'no-store' });
  }

  function post(path, payload) {
    return call(path, { method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(payload || {}) });
  }

  async function act(button, fn) {
    if (button) button.disabled = true;
    try {
      const body = await fn();
      toast(body.message || 'done', false);
      await refreshFast();
      await refreshSlow();
    } catch (e) {
      toast(e.message, true);
    } finally {
      if (button) button.disabled = false;
    }
  }

  let toastTimer = null;
  function toast(message, bad) {
    const t = $('toast');
    t.textContent = message;
    t.className = 'show' + (bad ? ' bad' : '');
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { t.className = ''; }, bad ? 8000 : 4000);
  }

  // ---- formatting ----------------------------------------------------------------------------

  function duration(ms) {
    if (ms == null) return '–';
    const s = Math.floor(ms / 1000);
    if (s < 60) return s + 's';
    if (s < 3600) return Math.floor(s / 60) + 'm ' + (s % 60) + 's';
    if (s < 86400) return Math.floor(s / 3600) + 'h ' + Math.floor((s % 3600) / 60) + 'm';
    return Math.floor(s / 86400) + 'd ' + Math.floor((s % 86400) / 3600) + 'h';
  }

  function ms(v) {
    if (v == null) return '–';
    return v >= 1000 ? (v / 1000).toFixed(v >= 10000 ? 0 : 1) + 's' : Math.round(v) + 'ms';
  }

  function num(v) {
    return v == null ? '–' : Number(v).toLocaleString('en-US');
  }

  function cell(tr, value, cls) {
    const td = document.createElement('td');
    if (value instanceof Node) td.appendChild(value); else td.textContent = value == null ? '' : String(value);
    if (cls) td.className = cls;
    tr.appendChild(td);
    return td;
  }

  function button(label, cls, onClick) {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = label;
    if (cls) b.className = cls;
    b.addEventListener('click', () => onClick(b));
    return b;
  }

  function replaceRows(tbody, rows) {
    while (tbody.firstChild) tbody.removeChild(tbody.firstChild);
    rows.forEach(r => tbody.appendChild(r));
  }

  // ---- rendering -----------------------------------------------------------------------------

  /** With several queues, a picker in place of the name; its options change only with the list. */
  function renderQueuePicker(names, shown) {
    const picker = $('queue-picker');
    const several = names.length > 1;
    picker.hidden = !several;
    $('queue-name').hidden = several;
    if (!several) return;
    if (picker.dataset.names !== names.join('\n')) {
      picker.textContent = '';
      names.forEach(n => {
        const o = document.createElement('option');
        o.value = n;
        o.textContent = n;
        picker.appendChild(o);
      });
      picker.dataset.names = names.join('\n');
    }
    picker.value = shown;
  }

  function renderStatus(s) {
    lastStatus = s;
    $('queue-name').textContent = s.queue;
    renderQueuePicker(s.queues || [s.queue], s.queue);
    $('supervisor-pid').textContent = s.supervisorPid;
    const workers = s.children.filter(c => c.role === 'worker');
    $('worker-count').textContent = workers.filter(c => c.state === 'RUNNING').length;
    $('worker-target').textContent = s.workers;
    const input = $('workers-input');
    if (document.activeElement !== input && input.dataset.touched !== 'yes') input.value = s.workers;
    replaceRows($('children'), s.children.map(c => {
      const tr = document.createElement('tr');
      tr.dataset.child = c.name;
      cell(tr, c.name);
      cell(tr, c.role);
      cell(tr, c.pid == null ? '–' : c.pid, 'num');
      const badge = document.createElement('span');
      badge.className = 'state ' + c.state;
      badge.textContent = c.state;
      cell(tr, badge);
      cell(tr, c.pid == null ? '–' : duration(c.uptimeMs), 'num');
      cell(tr, c.restarts, 'num');
      cell(tr, c.lastExitCode == null ? '–' : c.lastExitCode, 'num');
      const b = button('Restart', 'restart', btn => {
        if (confirm('Restart ' + c.name + '? A worker drains its running jobs first.')) {
          act(btn, () => post('api/children/' + encodeURIComponent(c.name) + '/restart'));
        }
      });
      b.disabled = c.role === 'redis' || c.state === 'STOPPING';
      b.title = c.role === 'redis' ? 'the embedded Redis restarts with the supervisor only' : 'stop and start again';
      cell(tr, b);
      return tr;
    }));
    $('token-form').hidden = true;
    const err = $('redis-error');
    err.hidden = !s.redisError;
    err.textContent = s.redisError || '';
    const st = s.stats;
    const d = st ? st.depths : {};
    ['delayed', 'ready', 'inFlight', 'dead', 'waiting'].forEach(k => { $('depth-' + k).textContent = num(d[k]); });
    $('backlog').textContent = st ? num(st.backlog) : '–';
    $('oldest-overdue').textContent = st ? (st.oldestOverdueMs > 0 ? duration(st.oldestOverdueMs) : '0s') : '–';
    $('jobs-per-second').textContent = st ? (Math.round(st.jobsPerSecond * 10) / 10).toString() : '–';
    $('lateness-minute').textContent = st && st.latenessP50Ms != null
      ? '≤' + ms(st.latenessP50Ms) + ' / ≤' + ms(st.latenessP99Ms) : '–';
    const flow = st && st.flow ? st.flow : { paused: {}, held: {} };
    const partly = flow.partlyPaused || {};
    const queuePaused = Object.prototype.hasOwnProperty.call(flow.paused, '*');
    // a sharded queue's pause that failed part way: shown as such; the Pause button finishes it
    const queuePartly = partly['*'];
    $('queue-paused').hidden = !queuePaused && !queuePartly;
    $('queue-paused').textContent = queuePartly
      ? 'PAUSED ON ' + queuePartly.shards + ' OF ' + queuePartly.of + ' SHARDS' : 'PAUSED';
    $('pause-queue-button').textContent = queuePaused ? 'Resume queue' : 'Pause queue';
    $('pause-queue-button').dataset.paused = queuePaused ? 'yes' : 'no';
    renderTypes(st ? st.counters : {}, flow);
    renderBatches(st ? st.batches || [] : [], st ? d.batchesOpen : null);
  }

  /** The open batches the status carries (the oldest ones), with their counts. */
  function renderBatches(batches, open) {
    $('batches-total').textContent = open > batches.length ? '(oldest ' + batches.length + ' of ' + num(open) + ' open)'
      : '(' + num(open) + ' open)';
    $('batches-empty').hidden = batches.length > 0;
    const now = Date.now();
    replaceRows($('batch-rows'), batches.map(b => {
      const tr = document.createElement('tr');
      tr.dataset.id = b.id;
      cell(tr, b.id, 'id');
      cell(tr, b.state);
      ['total', 'pending', 'done', 'dead'].forEach(k => cell(tr, num(b[k]), 'num'));
      cell(tr, duration(now - b.createdAt) + ' ago').title = new Date(b.createdAt).toISOString();
      return tr;
    }));
  }

  function renderTypes(counters, flow) {
    const events = ['enqueued', 'started', 'succeeded', 'failed', 'retried', 'dead', 'rescheduled', 'cancelled', 'rate_limited'];
    const waiting = flow.waitingForHandler || {};
    const types = new Set(Object.keys(counters).concat(Object.keys(flow.held), Object.keys(flow.paused),
      Object.keys(flow.partlyPaused || {}), Object.keys(waiting)));
    types.delete('*');
    replaceRows($('type-rows'), Array.from(types).sort().map(type => {
      const tr = document.createElement('tr');
      cell(tr, type);
      events.forEach(e => cell(tr, num((counters[type] || {})[e] || 0), 'num'));
      const paused = Object.prototype.hasOwnProperty.call(flow.paused, type);
      const part = (flow.partlyPaused || {})[type];
      const held = flow.held[type] || 0;
      const state = paused ? 'paused' : part ? 'paused on ' + part.shards + ' of ' + part.of + ' shards' : '';
      // due jobs no worker they reached had a handler for: they wait for one that announces the type
      const noHandler = waiting[type] || 0;
      const shown = state + (held > 0 ? (state ? ', ' : '') + num(held) + ' held' : '');
      cell(tr, shown + (noHandler > 0 ? (shown ? ', ' : '') + num(noHandler) + ' waiting for a handler' : ''));
      cell(tr, button(paused ? 'Resume' : 'Pause', 'restart', btn =>
        act(btn, () => post(paused ? 'api/resume' : 'api/pause', { scope: type }))));
      return tr;
    }));
  }

  function renderSeries(s) {
    const from = s.now - WINDOW_SECONDS;
    const depthSeries = ['delayed', 'ready', 'inFlight', 'dead'].map(k => ({
      name: k === 'inFlight' ? 'in flight' : k, color: COLORS[k], points: s.depths.map(p => [p.t, p[k]])
    }));
    DQCharts.line($('chart-depths'), depthSeries, { from: from, to: s.now, maxGap: 5, empty: 'sampled while this page is open' });
    const rates = ['succeeded', 'failed', 'retried', 'dead', 'rescheduled'].map(k => ({
      name: k, color: COLORS[k], points: s.points.map(p => [p.t, p.counts[k]])
    }));
    DQCharts.line($('chart-throughput'), rates, { from: from, to: s.now });
    const lateness = [
      { name: 'p50', color: COLORS.p50, points: s.points.map(p => [p.t, p.latenessP50Ms]) },
      { name: 'p99', color: COLORS.p99, points: s.points.map(p => [p.t, p.latenessP99Ms]) }
    ];
    DQCharts.line($('chart-lateness'), lateness, { from: from, to: s.now, log: true, empty: 'no job started' });
  }

  function renderForecast(f) {
    const total = f.counts.reduce((a, b) => a + b, 0);
    $('forecast-total').textContent = num(total) + ' job(s) due in the next ' + f.counts.length + ' min';
    DQCharts.bars($('chart-forecast'), f.counts, {
      color: COLORS.forecast, every: 10,
      label: i => '+' + i + 'm',
      title: (i, v) => v + ' job(s) due ' + i + '–' + (i + 1) + ' min from now'
    });
  }

  function renderDead(body) {
    const total = lastStatus && lastStatus.stats ? lastStatus.stats.depths.dead : body.jobs.length;
    $('dead-total').textContent = total > body.jobs.length ? '(newest ' + body.jobs.length + ' of ' + num(total) + ')'
      : '(' + body.jobs.length + ')';
    $('dead-empty').hidden = body.jobs.length > 0;
    $('retry-all-button').disabled = body.jobs.length === 0;
    $('purge-button').disabled = body.jobs.length === 0;
    const now = Date.now();
    replaceRows($('dead-rows'), body.jobs.map(j => {
      const tr = document.createElement('tr');
      tr.dataset.id = j.id;
      cell(tr, j.id, 'id');
      cell(tr, j.type);
      cell(tr, duration(now - j.deadAt) + ' ago').title = new Date(j.deadAt).toISOString();
      cell(tr, j.attempt + ' / ' + j.maxAttempts, 'num');
      const box = document.createElement('div');
      const pre = document.createElement('pre');
      pre.textContent = j.lastError || '';
      box.appendChild(pre);
      if (j.payload != null) {
        const det = document.createElement('details');
        const sum = document.createElement('summary');
        sum.textContent = 'payload' + (j.payloadTruncated ? ' (cut: ' + j.payloadBytes + ' bytes in all)' : '');
        const p = document.createElement('pre');
        p.textContent = j.payload;
        det.appendChild(sum);
        det.appendChild(p);
        box.appendChild(det);
      }
      cell(tr, box, 'error-text');
      cell(tr, button('Retry', 'retry', btn => act(btn, () => post('api/dead/' + encodeURIComponent(j.id) + '/retry'))));
      return tr;
    }));
  }

  // ---- recurring schedules -------------------------------------------------------------------

  function renderSchedules(body) {
    $('schedules-empty').hidden = body.schedules.length > 0;
    replaceRows($('schedule-rows'), body.schedules.map(s => {
      const tr = document.createElement('tr');
      tr.dataset.id = s.id;
      cell(tr, s.id, 'id');
      if (s.broken != null) {
        // its stored definition cannot be read: it does not tick; only removing it works
        cell(tr, 'broken: ' + s.broken, 'broken');
        cell(tr, '');
        cell(tr, 'broken');
        cell(tr, '–');
        cell(tr, button('Remove', 'danger remove', b => {
          if (confirm('Remove schedule ' + s.id + '?')) act(b, () => post('api/schedules/' + encodeURIComponent(s.id)
            + '/remove')).then(refreshSchedules);
        }));
        return tr;
      }
      cell(tr, s.cadence);
      cell(tr, s.type);
      cell(tr, s.paused ? 'paused' : 'active');
      cell(tr, s.nextTicks.slice(0, 3).map(t => new Date(t).toISOString().replace('.000Z', 'Z')).join(', ') || '–');
      const actions = document.createElement('div');
      actions.className = 'controls';
      const on = (action, b) => act(b, () => post('api/schedules/' + encodeURIComponent(s.id) + '/' + action))
        .then(refreshSchedules);
      actions.appendChild(button(s.paused ? 'Resume' : 'Pause', 'pause', b => on(s.paused ? 'resume' : 'pause', b)));
      actions.appendChild(button('Run now', 'run', b => on('run', b)));
      actions.appendChild(button('Remove', 'danger remove', b => {
        if (confirm('Remove schedule ' + s.id + '?')) on('remove', b);
      }));
      cell(tr, actions);
      return tr;
    }));
  }

  async function refreshSchedules() {
    renderSchedules(await get('api/schedules'));
  }

  // ---- job browser ---------------------------------------------------------------------------

  let jobsOffset = 0;
  let jobsNext = -1;

  function jobsPath(offset) {
    const [state, within] = $('jobs-view').value.split(':');
    const p = new URLSearchParams({ state: state, limit: '50', offset: String(offset) });
    if (within !== '0') p.set('within', within);
    const type = $('jobs-type').value.trim();
    const prefix = $('jobs-prefix').value.trim();
    const id = $('jobs-id').value.trim();
    if (type) p.set('type', type);
    if (prefix) p.set('prefix', prefix);
    if (id) p.set('id', id);
    return 'api/jobs?' + p.toString();
  }

  function jobAction(j, action, body) {
    return post('api/jobs/' + encodeURIComponent(j.id) + '/' + action, body);
  }

  function renderJobs(body) {
    jobsNext = body.nextOffset;
    $('jobs-more').hidden = jobsNext < 0;
    $('jobs-empty').hidden = body.jobs.length > 0;
    replaceRows($('job-rows'), body.jobs.map(j => {
      const tr = document.createElement('tr');
      tr.dataset.id = j.id;
      cell(tr, j.id, 'id');
      cell(tr, j.type);
      cell(tr, j.state + (j.consumer ? (j.running === false ? ' (in the batch of ' + j.consumer + ')'
        : ' on ' + j.consumer) : ''));
      const d = j.dueAt - body.nowMs;
      cell(tr, j.dueAt > 0 ? (d >= 0 ? 'in ' + duration(d) : duration(-d) + ' ago') : '–').title =
        j.dueAt > 0 ? new Date(j.dueAt).toISOString() : '';
      cell(tr, j.attempt + ' / ' + j.maxAttempts, 'num');
      const pre = document.createElement('pre');
      pre.textContent = j.payload == null ? '' : j.payload;
      cell(tr, pre, 'error-text');
      const actions = document.createElement('div');
      actions.className = 'controls';
      const pending = j.state === 'DELAYED' || j.state === 'READY';
      [button('Inspect', 'inspect', () => inspectJob(j.id).catch(err => toast(err.message, true))),
        button('Run now', 'promote', b => act(b, () => jobAction(j, 'promote')).then(refreshJobs)),
        button('Reschedule', 'reschedule', b => {
          const delay = prompt('Due after (from now), e.g. 30s, 10m, 2h:', '10m');
          if (delay) act(b, () => jobAction(j, 'reschedule', { delay: delay })).then(refreshJobs);
        }),
        button('Edit', 'edit', b => {
          const payload = prompt('New payload (JSON):', j.payloadTruncated ? '' : j.payload);
          if (payload != null) act(b, () => jobAction(j, 'edit', { payload: payload })).then(refreshJobs);
        }),
        button('Cancel', 'danger cancel', b => {
          if (confirm('Cancel job ' + j.id + '?')) act(b, () => jobAction(j, 'cancel')).then(refreshJobs);
        })].forEach(btn => {
        // a running job can be cancelled (its worker interrupts it), not changed; so can a job
        // waiting for other jobs (how an operator ends one held by a dead dependency)
        btn.disabled = !pending && !btn.classList.contains('inspect')
          && !((j.state === 'IN_FLIGHT' || j.state === 'WAITING') && btn.classList.contains('cancel'));
        actions.appendChild(btn);
      });
      cell(tr, actions);
      return tr;
    }));
  }

  // below the table, so the browser's refresh of its rows leaves it in place
  async function inspectJob(id) {
    const body = await get('api/jobs?' + new URLSearchParams({ id: id }).toString());
    const out = $('job-inspect');
    out.textContent = body.jobs.length ? JSON.stringify(body.jobs[0], null, 2)
      : 'job ' + id + ': Redis knows nothing of it (never enqueued, or done and not kept)';
    out.hidden = false;
  }

  async function refreshJobs() {
    renderJobs(await get(jobsPath(jobsOffset)));
  }

  function setLive(ok, text) {
    $('live-dot').className = 'dot ' + (ok ? 'live' : 'down');
    $('live-text').textContent = text;
  }

  // ---- polling -------------------------------------------------------------------------------

  async function refreshFast() {
    const [status, series] = await Promise.all([get('api/status'), get('api/series?seconds=' + WINDOW_SECONDS)]);
    renderStatus(status);
    renderSeries(series);
    setLive(!status.redisError, (status.redisError ? 'Redis unreachable · ' : 'live · ') +
      new Date(status.time).toLocaleTimeString());
  }

  async function refreshSlow() {
    const [dead, forecast] = await Promise.all([get('api/dead?limit=50'), get('api/forecast?minutes=60')]);
    renderDead(dead);
    renderForecast(forecast);
  }

  function loop(fn, every) {
    const run = async () => {
      try {
        await fn();
      } catch (e) {
        setLive(false, 'offline: ' + e.message);
      }
      setTimeout(run, every);
    };
    run();
  }

  // ---- wiring --------------------------------------------------------------------------------

  $('queue-picker').addEventListener('change', e => {
    queue = e.target.value;
    sessionStorage.setItem('delayq-queue', queue);
    jobsOffset = 0;
    refreshFast().catch(err => setLive(false, 'offline: ' + err.message));
    refreshSlow().catch(err => setLive(false, 'offline: ' + err.message));
    refreshJobs().catch(err => setLive(false, 'offline: ' + err.message));
    refreshSchedules().catch(err => setLive(false, 'offline: ' + err.message));
  });
  $('workers-input').addEventListener('input', e => { e.target.dataset.touched = 'yes'; });
  $('resize-button').addEventListener('click', e => {
    const n = Number($('workers-input').value);
    act(e.target, () => post('api/resize', { workers: n })).then(() => { $('workers-input').dataset.touched = ''; });
  });
  $('pause-queue-button').addEventListener('click', e => {
    const paused = e.target.dataset.paused === 'yes';
    if (paused || confirm('Pause the whole queue? Jobs are still accepted; none starts until it is resumed.')) {
      act(e.target, () => post(paused ? 'api/resume' : 'api/pause', { scope: '*' }));
    }
  });
  $('retry-all-button').addEventListener('click', e => {
    if (confirm('Run every dead job again?')) act(e.target, () => post('api/dead/retry-all'));
  });
  $('purge-button').addEventListener('click', e => {
    const age = $('purge-age').value.trim();
    const what = age ? 'dead jobs dead for longer than ' + age : 'EVERY dead job';
    if (confirm('Delete ' + what + ' for good?')) act(e.target, () => post('api/dead/purge', age ? { olderThan: age } : {}));
  });
  $('schedule-form').addEventListener('submit', e => {
    e.preventDefault();
    const when = $('schedule-when').value.trim();
    const every = when.match(/^every\s+(\S+)$/);
    const body = { id: $('schedule-id').value.trim(), type: $('schedule-type').value.trim(),
      payload: $('schedule-payload').value.trim() || '{}', missed: $('schedule-missed').value };
    if (every) body.every = every[1]; else { body.cron = when; body.tz = $('schedule-tz').value.trim(); }
    act($('schedule-save'), () => post('api/schedules', body)).then(refreshSchedules);
  });
  $('jobs-form').addEventListener('submit', e => {
    e.preventDefault();
    jobsOffset = 0;
    refreshJobs().catch(err => toast(err.message, true));
  });
  $('jobs-more').addEventListener('click', () => {
    jobsOffset = jobsNext;
    refreshJobs().catch(err => toast(err.message, true));
  });
  $('token-form').addEventListener('submit', e => {
    e.preventDefault();
    token = $('token-input').value.trim();
    sessionStorage.setItem('delayq-token', token);
    $('token-form').hidden = true;
    toast('token set for this tab', false);
    refreshFast().then(refreshSlow).catch(err => setLive(false, 'offline: ' + err.message));
  });
  DQCharts.legend($('legend-depths'), ['delayed', 'ready', 'inFlight', 'dead']
    .map(k => ({ name: k === 'inFlight' ? 'in flight' : k, color: COLORS[k] })));
  DQCharts.legend($('legend-throughput'), ['succeeded', 'failed', 'retried', 'dead', 'rescheduled']
    .map(k => ({ name: k, color: COLORS[k] })));
  DQCharts.legend($('legend-lateness'), [{ name: 'p50', color: COLORS.p50 }, { name: 'p99', color: COLORS.p99 }]);
  loop(refreshFast, FAST_MS);
  loop(refreshSlow, SLOW_MS);
  loop(refreshJobs, SLOW_MS);
  loop(refreshSchedules, SLOW_MS);
})();
