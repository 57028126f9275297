"""The microphone recorder's front end: the ES module and the style sheet anywidget runs in
the browser for :class:`course_lib.widgets.recorder.Recorder` (plain JavaScript and CSS, no
libraries, no build step).

``_ESM`` asks for the microphone with ``navigator.mediaDevices.getUserMedia``, records a take of
at most ``max_seconds`` with the ``MediaRecorder`` API, decodes it with the Web Audio API, draws
its waveform and sends the samples to the kernel as one binary message (``kind: "recording"``);
it says in one line why there is no microphone (not a secure page, a denied prompt, no input
device), and when the kernel answers with the kept take (``kind: "kept"``) it plays it and
shades the part kept. ``_CSS`` lays the widget out and gives its controls a visible focus ring.
"""

# The front end: plain JavaScript run by anywidget in the browser (no libraries, no build).
_ESM = r"""
const FAIL = {
  insecure: "No microphone here: the browser allows one only on a secure page (https or this " +
            "computer's own JupyterLab); the cells below use the shipped recordings.",
  NotAllowedError: "Microphone permission was denied; allow it in the browser's address bar " +
                   "and press Record again, or go on: the cells below use the shipped recordings.",
  NotFoundError: "No microphone was found; the cells below use the shipped recordings.",
  other: "The microphone could not be opened (%s); the cells below use the shipped recordings.",
};

function failure(err) {
  if (err && FAIL[err.name]) return FAIL[err.name];
  if (err && err.name === "SecurityError") return FAIL.insecure;
  return FAIL.other.replace("%s", (err && (err.name || err.message)) || String(err));
}

function drawWave(canvas, samples, kept) {
  const ctx = canvas.getContext("2d");
  const w = canvas.width, h = canvas.height;
  ctx.clearRect(0, 0, w, h);
  ctx.fillStyle = "#f4f4f4";
  ctx.fillRect(0, 0, w, h);
  if (!samples || samples.length === 0) return;
  if (kept) {
    ctx.fillStyle = "#dcebf7";
    ctx.fillRect(kept[0] * w, 0, (kept[1] - kept[0]) * w, h);
    // the shading alone is 1.1:1 against the background; dark edges mark the kept part at 3:1+
    ctx.fillStyle = "#0b4f8a";
    ctx.fillRect(kept[0] * w, 0, 2, h);
    ctx.fillRect(kept[1] * w - 2, 0, 2, h);
  }
  ctx.strokeStyle = "#1f77b4";
  ctx.beginPath();
  const per = Math.max(1, Math.floor(samples.length / w));
  for (let x = 0; x < w; x++) {
    let lo = 0, hi = 0;
    const from = Math.floor(x * samples.length / w);
    for (let k = from; k < Math.min(samples.length, from + per); k++) {
      lo = Math.min(lo, samples[k]); hi = Math.max(hi, samples[k]);
    }
    ctx.moveTo(x + 0.5, h / 2 - hi * h / 2);
    ctx.lineTo(x + 0.5, h / 2 - lo * h / 2 + 1);
  }
  ctx.stroke();
}

function render({ model, el }) {
  el.classList.add("course-recorder");
  el.setAttribute("role", "group");
  el.setAttribute("aria-label", "Microphone recorder");
  const prompt = document.createElement("div");
  prompt.className = "course-recorder-prompt";
  // a live region: the word to say next is read out after Record and after Back
  prompt.setAttribute("aria-live", "polite");
  const row = document.createElement("div");
  row.className = "course-recorder-row";
  const record = document.createElement("button");
  record.className = "jupyter-button course-recorder-record";
  const back = document.createElement("button");
  back.className = "jupyter-button course-recorder-back";
  back.textContent = "Back one word";
  const audio = document.createElement("audio");
  audio.controls = true;
  audio.className = "course-recorder-player";
  audio.setAttribute("aria-label", "Play the kept take");
  row.append(record, back);   // the player joins the row once there is a take to play
  const canvas = document.createElement("canvas");
  canvas.width = 480; canvas.height = 80;
  canvas.className = "course-recorder-wave";
  canvas.setAttribute("role", "img");
  canvas.setAttribute("aria-label", "Waveform: no take yet");
  const status = document.createElement("div");
  status.className = "course-recorder-status";
  // a live region that stays in place: a screen reader reads each new line as it is set
  status.setAttribute("role", "status");
  status.setAttribute("aria-live", "polite");
  el.append(prompt, row, canvas, status);

  let recorder = null, stream = null, timer = null, lastWave = null, url = null;
  const busy = () => recorder !== null;

  function showPrompt() {
    const prompts = model.get("prompts");
    const i = model.get("prompt_index");
    if (prompts.length === 0) { prompt.textContent = ""; back.style.display = "none"; return; }
    back.style.display = "";
    const hadFocus = document.activeElement === back;
    back.disabled = busy() || i === 0;
    // a disabled button drops the keyboard focus to the page: hand it to Record instead
    if (hadFocus && back.disabled) record.focus();
    prompt.textContent = i < prompts.length
      ? `Say "${prompts[i]}" (word ${i + 1} of ${prompts.length})`
      : `All ${prompts.length} words recorded; press Record to replace the last one, or Back.`;
  }
  function showButton() {
    record.textContent = busy() ? "Stop" : "Record";
    record.disabled = model.get("unavailable");
    showPrompt();
  }
  function say(line) {
    model.set("status", line);
    model.save_changes();
  }
  status.textContent = model.get("status");
  model.on("change:status", () => { status.textContent = model.get("status"); });
  model.on("change:prompt_index", showPrompt);
  model.on("change:prompts", showPrompt);
  model.on("change:unavailable", showButton);
  drawWave(canvas, null, null);
  showButton();

  if (!(navigator.mediaDevices && navigator.mediaDevices.getUserMedia &&
        window.MediaRecorder)) {
    model.set("unavailable", true);
    say(FAIL.insecure);
  }

  async function finish(chunks, mime) {
    const blob = new Blob(chunks, { type: mime });
    if (blob.size === 0) { say("Nothing was recorded (the microphone sent no sound); record again."); return; }
    let decoded;
    try {
      const context = new (window.AudioContext || window.webkitAudioContext)();
      decoded = await context.decodeAudioData(await blob.arrayBuffer());
      context.close();
    } catch (err) {
      say("The recording could not be decoded; record again."); return;
    }
    const samples = decoded.getChannelData(0);
    if (samples.length === 0) { say("Nothing was recorded; record again."); return; }
    lastWave = samples;
    drawWave(canvas, samples, null);
    canvas.setAttribute("aria-label", `Waveform of the last take, ${decoded.duration.toFixed(2)} s`);
    say(`Recorded ${decoded.duration.toFixed(2)} s; trimming it in Python...`);
    const copy = new Float32Array(samples);
    model.send({ kind: "recording", sample_rate: decoded.sampleRate }, undefined, [copy.buffer]);
  }

  async function start() {
    try {
      stream = await navigator.mediaDevices.getUserMedia({
        audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false,
                 channelCount: 1 } });
    } catch (err) {
      if (err && err.name !== "NotAllowedError") model.set("unavailable", true);
      say(failure(err));
      showButton();
      return;
    }
    const chunks = [];
    recorder = new MediaRecorder(stream);
    recorder.ondataavailable = (e) => { if (e.data && e.data.size > 0) chunks.push(e.data); };
    recorder.onstop = () => {
      const mime = recorder.mimeType;
      stream.getTracks().forEach((track) => track.stop());
      recorder = null; stream = null; clearTimeout(timer);
      showButton();
      finish(chunks, mime);
    };
    recorder.start();
    const limit = model.get("max_seconds");
    timer = setTimeout(() => { if (recorder) recorder.stop(); }, limit * 1000);
    say(`Recording (at most ${limit} s): say the word, then press Stop.`);
    showButton();
  }

  record.addEventListener("click", () => {
    if (busy()) { recorder.stop(); } else { start(); }
  });
  back.addEventListener("click", () => {
    model.send({ kind: "back" });
  });
  model.on("msg:custom", (msg, buffers) => {
    if (msg.kind !== "kept") return;
    if (url) URL.revokeObjectURL(url);
    url = URL.createObjectURL(new Blob([buffers[0]], { type: "audio/wav" }));
    audio.src = url;
    if (!audio.isConnected) row.append(audio);
    if (lastWave && msg.untrimmed_s > 0) {
      drawWave(canvas, lastWave, [msg.start_s / msg.untrimmed_s, msg.end_s / msg.untrimmed_s]);
      canvas.setAttribute("aria-label", `Waveform of the last take, ${msg.untrimmed_s.toFixed(2)}` +
        ` s; the part kept, ${msg.start_s.toFixed(2)} s to ${msg.end_s.toFixed(2)} s, is shaded`);
    }
  });
  return () => {
    if (recorder) recorder.stop();
    if (stream) stream.getTracks().forEach((track) => track.stop());
    if (url) URL.revokeObjectURL(url);
  };
}

export default { render };
"""

_CSS = """
.course-recorder { display: flex; flex-direction: column; gap: 4px; margin: 4px 0; }
.course-recorder-row { display: flex; align-items: center; gap: 6px; }
.course-recorder-prompt { font-weight: bold; }
.course-recorder-player { height: 32px; }
.course-recorder-wave { border: 1px solid #ccc; width: 480px; height: 80px; }
.course-recorder-status { font-size: 90%; }
/* a focus ring at 3:1 or more on the lab's white (ipywidgets' own is 1 px at 2.2:1); the
   selector outranks ipywidgets' .jupyter-button:focus:enabled */
.course-recorder .jupyter-button:focus-visible:enabled, .course-recorder audio:focus-visible {
  outline: 2px solid #1a53a1; outline-offset: 1px; }
"""
