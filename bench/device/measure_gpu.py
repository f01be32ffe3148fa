#!/usr/bin/env python3
"""Measures how fast kernels really run on one accelerator, for a compute profile
(models/compute/) and `ccsim calibrate compute`.

  python3 bench/device/measure_gpu.py --out DIR [--device cuda|cpu] [--quick] [--deadline-s S]

Writes into DIR:
  gemm.csv    one row per matrix product: m,n,k,batch,dtype,seconds,reps,op,layout
              (C[m,n] = A[m,k] B[k,n], `batch` products of that shape in one kernel; seconds is
              the median of `reps` timed runs of one product after warm-up). Rows come from the
              shapes a Megatron GPT layer produces (QKV, attention projection, MLP, logits in
              forward, data-gradient and weight-gradient layout; attention scores and context as
              batched products) at hidden 2,048-20,480, TP 1-8 and sequence 2,048-8,192, from a
              power-of-two grid, and from a few squares in other dtypes.
  memory.csv  one row per memory-bound kernel: op,dtype,elements,bytes,seconds,reps (bytes is the
              least traffic the kernel must move: what it reads plus what it writes).
  launch.csv  per-kernel overhead: mode,kernels,seconds_per_kernel (eager: back-to-back launches
              of a 1-element kernel from Python; graph: the same kernels replayed from a CUDA
              graph, the device's own gap between kernels).
  gemm_graph.csv, memory_graph.csv: the small ones again (about 200 us and less), replayed from
              CUDA graphs: the device's time without the host's launch cost.
  attention.csv  fused causal attention (scaled_dot_product_attention) forward and
              forward + backward: seq,heads,head_dim,dtype,forward_seconds,forward_backward_seconds,reps
  layers.csv  end-to-end GPT layer stacks (forward + backward, unprofiled, median of timed
              iterations), and layers/NAME.trace.json.gz: a torch.profiler trace (CPU and CUDA
              activities) of two iterations of each.
  env.json    the device, its clocks, the library versions.

--device cpu --quick runs the same code on small shapes on the CPU (for testing this script).
--deadline-s stops starting new measurements after S seconds (what was measured is kept).
"""
import argparse, csv, gzip, json, math, os, platform, shutil, statistics, subprocess, sys, time

import torch
import torch.nn.functional as F

T0 = time.time()


class Clock:
    """Times a callable on the chosen device: CUDA events on a GPU, perf_counter on the CPU."""

    def __init__(self, device):
        self.cuda = device.type == "cuda"

    def sync(self):
        if self.cuda:
            torch.cuda.synchronize()

    def once(self, fn):
        if self.cuda:
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            fn()
            b.record()
            b.synchronize()
            return a.elapsed_time(b) / 1e3
        t = time.perf_counter()
        fn()
        return time.perf_counter() - t

    def median(self, fn, min_reps=5, max_reps=100, target_s=0.05, warmup=2):
        """Median seconds of one call after `warmup` calls; as many reps as fit in target_s."""
        for _ in range(warmup):
            fn()
        self.sync()
        first = self.once(fn)
        reps = max(min_reps, min(max_reps, int(math.ceil(target_s / max(first, 1e-7)))))
        ts = [first] + [self.once(fn) for _ in range(reps - 1)]
        return statistics.median(ts), reps


    def graph_median(self, fn, calls=20, reps=7):
        """Median seconds of one call replayed from a CUDA graph of `calls` calls: the device's
        own time per kernel, without the host's launch cost (a GPU only)."""
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                fn()
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(calls):
                fn()
        graph.replay()
        self.sync()
        ts = [self.once(graph.replay) / calls for _ in range(reps)]
        del graph
        return statistics.median(ts), reps * calls


def past(deadline):
    return deadline is not None and time.time() - T0 > deadline


# ---------------------------------------------------------------------------------------------
# matrix products
# ---------------------------------------------------------------------------------------------
DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32, "tf32": torch.float32}

# GPT models whose layers the sweep covers: hidden, heads, ffn (4h), vocabulary (padded)
GPT_HIDDEN = [(2048, 16), (4096, 32), (8192, 64), (12288, 96), (16384, 128), (20480, 128)]
VOCAB = 51200
SMALL_FLOP = 1.5e11        # products re-timed from CUDA graphs: about 200 us and less
SMALL_ELEMENTS = 1 << 25   # memory-bound kernels re-timed from CUDA graphs


def gpt_shapes(hidden, tps, seqs, micro_batch=1):
    """(op, layout, m, n, k, batch) of every product of a Megatron GPT layer on one TP rank."""
    out = []
    for h, heads in hidden:
        for t in tps:
            if heads % t:
                continue
            for s in seqs:
                m = s * micro_batch
                for name, n, k in (("qkv", 3 * h // t, h), ("proj", h, h // t),
                                   ("fc1", 4 * h // t, h), ("fc2", h, 4 * h // t),
                                   ("logits", VOCAB // t, h)):
                    out.append(("fwd:" + name, "NT", m, n, k, 1))      # y = x W^T
                    out.append(("dgrad:" + name, "NN", m, k, n, 1))    # dx = dy W
                    out.append(("wgrad:" + name, "TN", n, k, m, 1))    # dW = dy^T x
                d = h // heads
                b = micro_batch * heads // t
                out.append(("scores", "NT", s, s, d, b))   # Q K^T (and dP = dO V^T)
                out.append(("ctx", "NN", s, d, s, b))      # P V (and dQ = dS K)
                out.append(("ctx_t", "TN", s, d, s, b))    # P^T dO, dS^T Q
    return out


def grid_shapes(sizes):
    return [("grid", "NN", m, n, k, 1) for m in sizes for n in sizes for k in sizes]


def make_product(layout, m, n, k, batch, dtype, device):
    """A closure computing one product of the layout, operands allocated once."""
    g = torch.Generator(device=device).manual_seed(m * 31 + n * 7 + k)

    def rnd(*shape):
        return torch.randn(*shape, generator=g, device=device, dtype=torch.float32).to(dtype)

    if batch == 1:
        if layout == "NT":    # A[m,k] B^T with B stored [n,k]
            a, b = rnd(m, k), rnd(n, k).t()
        elif layout == "TN":  # A^T with A stored [k,m]
            a, b = rnd(k, m).t(), rnd(k, n)
        else:
            a, b = rnd(m, k), rnd(k, n)
        c = torch.empty(m, n, device=device, dtype=dtype)
        return lambda: torch.mm(a, b, out=c)
    if layout == "NT":
        a, b = rnd(batch, m, k), rnd(batch, n, k).transpose(1, 2)
    elif layout == "TN":
        a, b = rnd(batch, k, m).transpose(1, 2), rnd(batch, k, n)
    else:
        a, b = rnd(batch, m, k), rnd(batch, k, n)
    c = torch.empty(batch, m, n, device=device, dtype=dtype)
    return lambda: torch.bmm(a, b, out=c)


def sweep_gemm(path, shapes, clock, device, deadline, log, graph=False):
    seen, rows = set(), 0
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["m", "n", "k", "batch", "dtype", "seconds", "reps", "op", "layout"])
        for op, layout, m, n, k, batch, dt in shapes:
            key = (layout, m, n, k, batch, dt)
            if key in seen:
                continue
            seen.add(key)
            if past(deadline):
                log("gemm: deadline reached after %d products" % rows)
                break
            torch.backends.cuda.matmul.allow_tf32 = dt == "tf32"
            torch.backends.cudnn.allow_tf32 = dt == "tf32"
            try:
                fn = make_product(layout, m, n, k, batch, DTYPES[dt], device)
                sec, reps = clock.graph_median(fn) if graph else clock.median(fn)
            except (RuntimeError, torch.cuda.OutOfMemoryError) as e:  # one shape, not the sweep
                log("gemm: %s %dx%dx%d b%d %s skipped: %s" % (op, m, n, k, batch, dt, str(e)[:200]))
                fn = None
                continue
            w.writerow([m, n, k, batch, dt, "%.9g" % sec, reps, op, layout])
            rows += 1
            del fn
            if rows % 100 == 0:
                f.flush()
                log("gemm: %d products, last %s %dx%dx%d b%d %s: %.3f ms, %.1f TFLOP/s" % (
                    rows, op, m, n, k, batch, dt, sec * 1e3, 2 * m * n * k * batch / sec / 1e12))
    torch.backends.cuda.matmul.allow_tf32 = False
    if device.type == "cuda":
        torch.cuda.empty_cache()
    return rows


# ---------------------------------------------------------------------------------------------
# memory-bound kernels and launch overhead
# ---------------------------------------------------------------------------------------------
def sweep_memory(path, sizes, clock, device, deadline, log, graph=False):
    """Elementwise and row-wise kernels: bytes each must move, seconds it took."""
    ops = []
    bf = torch.bfloat16
    for n in sizes:
        ops += [("copy", bf, n, 4 * n), ("add", bf, n, 6 * n), ("gelu", bf, n, 4 * n),
                ("dropout", bf, n, 5 * n), ("layernorm", bf, n, 4 * n), ("softmax", bf, n, 4 * n),
                ("add", torch.float32, n, 12 * n)]
    rows = 0
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["op", "dtype", "elements", "bytes", "seconds", "reps"])
        for op, dt, n, nbytes in ops:
            if past(deadline):
                log("memory: deadline reached after %d kernels" % rows)
                break
            x = torch.randn(n, device=device, dtype=torch.float32).to(dt)
            if op == "copy":
                y = torch.empty_like(x)
                fn = lambda: y.copy_(x)
            elif op == "add":
                y, z = torch.randn_like(x), torch.empty_like(x)
                fn = lambda: torch.add(x, y, out=z)
            elif op == "gelu":
                fn = lambda: F.gelu(x)
            elif op == "dropout":
                fn = lambda: F.dropout(x, p=0.1, training=True)
            elif op == "layernorm":
                hdim = 4096 if n >= 4096 else n
                x2 = x.view(-1, hdim)
                wt = torch.ones(hdim, device=device, dtype=dt)
                bs = torch.zeros(hdim, device=device, dtype=dt)
                fn = lambda: F.layer_norm(x2, (hdim,), wt, bs)
            else:
                sdim = 2048 if n >= 2048 else n
                x2 = x.view(-1, sdim)
                fn = lambda: torch.softmax(x2, dim=-1)
            sec, reps = clock.graph_median(fn) if graph else clock.median(fn)
            name = {torch.bfloat16: "bf16", torch.float32: "fp32"}[dt]
            w.writerow([op, name, n, nbytes, "%.9g" % sec, reps])
            rows += 1
            del x, fn
    if device.type == "cuda":
        torch.cuda.empty_cache()
    log("memory: %d kernels" % rows)
    return rows


def measure_launch(path, device, clock, log):
    x = torch.zeros(1, device=device)
    kernels = 2000
    rows = []
    for _ in range(50):
        x.add_(1.0)
    clock.sync()
    t = time.perf_counter()
    for _ in range(kernels):
        x.add_(1.0)
    clock.sync()
    rows.append(("eager", kernels, (time.perf_counter() - t) / kernels))
    if device.type == "cuda":
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                x.add_(1.0)
        torch.cuda.current_stream().wait_stream(s)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(kernels):
                x.add_(1.0)
        graph.replay()
        clock.sync()
        sec, _ = clock.median(graph.replay, min_reps=5, max_reps=10, target_s=0.0)
        rows.append(("graph", kernels, sec / kernels))
        t = time.perf_counter()
        for _ in range(200):
            torch.cuda.synchronize()
        rows.append(("synchronize", 200, (time.perf_counter() - t) / 200))
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["mode", "kernels", "seconds_per_kernel"])
        for r in rows:
            w.writerow([r[0], r[1], "%.9g" % r[2]])
    log("launch: " + ", ".join("%s %.2f us" % (r[0], r[2] * 1e6) for r in rows))


def measure_attention(path, seqs, heads_list, head_dims, clock, device, deadline, log):
    """Fused causal attention (F.scaled_dot_product_attention: flash kernels on a GPU), forward
    and forward + backward, at micro-batch 1: the attention core of current training stacks."""
    sdpa = getattr(F, "scaled_dot_product_attention", None)
    if sdpa is None:
        log("attention: this torch has no scaled_dot_product_attention")
        return
    rows = []
    for s in seqs:
        for heads in heads_list:
            for d in head_dims:
                if past(deadline):
                    break
                q, k, v = (torch.randn(1, heads, s, d, device=device, dtype=torch.bfloat16)
                           .requires_grad_(True) for _ in range(3))
                g = torch.randn(1, heads, s, d, device=device, dtype=torch.bfloat16)

                def fwd():
                    with torch.no_grad():
                        return sdpa(q, k, v, is_causal=True)

                def fwd_bwd():
                    sdpa(q, k, v, is_causal=True).backward(g)
                    q.grad = k.grad = v.grad = None

                f_s, _ = clock.median(fwd)
                fb_s, reps = clock.median(fwd_bwd)
                rows.append([s, heads, d, "bf16", "%.9g" % f_s, "%.9g" % fb_s, reps])
                del q, k, v, g
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["seq", "heads", "head_dim", "dtype", "forward_seconds",
                    "forward_backward_seconds", "reps"])
        w.writerows(rows)
    log("attention: %d shapes" % len(rows))


# ---------------------------------------------------------------------------------------------
# GPT layers, forward and backward, as Megatron runs them on one TP rank (unfused kernels)
# ---------------------------------------------------------------------------------------------
LAYER_CONFIGS = [
    # name, hidden, heads, tp, seq, micro-batch, layers
    ("gpt3-175b-tp8-s2048", 12288, 96, 8, 2048, 1, 2),
    ("gpt-530b-tp8-s2048", 20480, 128, 8, 2048, 1, 2),
    ("gpt-7b-tp1-s4096", 4096, 32, 1, 4096, 1, 2),
    ("gpt-7b-tp2-s8192", 4096, 32, 2, 8192, 1, 1),
]
QUICK_LAYER_CONFIGS = [("tiny-tp2-s64", 256, 8, 2, 64, 1, 2)]


class LayerStack:
    """`layers` GPT layers of one tensor-parallel rank: the rank's weight shards and the kernels
    Megatron runs on it (layer norms, QKV, scaled scores, causal mask, softmax, dropout, context,
    projection, bias, residual adds, MLP with GeLU), without the TP all_reduces."""

    def __init__(self, h, heads, tp, seq, mb, layers, device, dtype):
        self.h, self.np, self.hn, self.s, self.b = h, heads // tp, h // heads, seq, mb
        self.tp = tp
        g = torch.Generator(device=device).manual_seed(5)

        def P(*shape, fill=None):
            if fill is None:
                t = (torch.randn(*shape, generator=g, device=device) * 0.02).to(dtype)
            else:
                t = torch.full(shape, fill, device=device, dtype=dtype)
            return t.requires_grad_(True)

        self.W = [dict(ln1_w=P(h, fill=1.0), ln1_b=P(h, fill=0.0),
                       qkv_w=P(3 * h // tp, h), qkv_b=P(3 * h // tp, fill=0.0),
                       out_w=P(h, h // tp), out_b=P(h, fill=0.0),
                       ln2_w=P(h, fill=1.0), ln2_b=P(h, fill=0.0),
                       fc1_w=P(4 * h // tp, h), fc1_b=P(4 * h // tp, fill=0.0),
                       fc2_w=P(h, 4 * h // tp), fc2_b=P(h, fill=0.0)) for _ in range(layers)]
        self.mask = torch.triu(torch.ones(seq, seq, dtype=torch.bool, device=device), diagonal=1)
        self.x = (torch.randn(seq * mb, h, generator=g, device=device)).to(dtype).requires_grad_(True)
        self.dy = torch.randn(seq * mb, h, generator=g, device=device).to(dtype)

    def layer(self, x, W, i):
        from torch.profiler import record_function as rf
        s, b, h, np_, hn = self.s, self.b, self.h, self.np, self.hn
        m = "L%d" % i
        with rf("op:layernorm:%s.ln1" % m):
            y = F.layer_norm(x, (h,), W["ln1_w"], W["ln1_b"])
        with rf("op:linear:%s.attn.qkv" % m):
            qkv = F.linear(y, W["qkv_w"], W["qkv_b"])
        q, k, v = torch.split(qkv.view(s, b * np_, 3 * hn), hn, dim=-1)
        q, k, v = q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1)
        with rf("op:baddbmm:%s.attn.scores" % m):
            buf = torch.empty(b * np_, s, s, device=x.device, dtype=x.dtype)
            sc = torch.baddbmm(buf, q, k.transpose(1, 2), beta=0.0, alpha=1.0 / math.sqrt(hn))
        with rf("op:mask:%s.attn.mask" % m):
            sc = sc.masked_fill(self.mask, -10000.0)
        with rf("op:softmax:%s.attn.softmax" % m):
            p = torch.softmax(sc, dim=-1)
        with rf("op:dropout:%s.attn.dropout" % m):
            p = F.dropout(p, 0.1, training=True)
        with rf("op:bmm:%s.attn.ctx" % m):
            c = torch.bmm(p, v)
        c = c.view(b, np_, s, hn).permute(2, 0, 1, 3).reshape(s * b, np_ * hn)
        with rf("op:linear:%s.attn.out" % m):
            o = F.linear(c, W["out_w"])
        with rf("op:bias_dropout_add:%s.attn.residual" % m):
            x = x + F.dropout(o + W["out_b"], 0.1, training=True)
        with rf("op:layernorm:%s.ln2" % m):
            y = F.layer_norm(x, (h,), W["ln2_w"], W["ln2_b"])
        with rf("op:linear:%s.mlp.fc1" % m):
            u = F.linear(y, W["fc1_w"], W["fc1_b"])
        with rf("op:gelu:%s.mlp.act" % m):
            u = F.gelu(u)
        with rf("op:linear:%s.mlp.fc2" % m):
            o = F.linear(u, W["fc2_w"])
        with rf("op:bias_dropout_add:%s.mlp.residual" % m):
            return x + F.dropout(o + W["fc2_b"], 0.1, training=True)

    def forward(self):
        x = self.x
        for i, W in enumerate(self.W):
            x = self.layer(x, W, i)
        return x

    def step(self):
        from torch.profiler import record_function as rf
        with rf("phase:forward"):
            y = self.forward()
        with rf("phase:backward"):
            y.backward(self.dy)
        for W in self.W:
            for p in W.values():
                p.grad = None
        self.x.grad = None


def measure_layers(outdir, configs, device, clock, deadline, log):
    from torch.profiler import profile, ProfilerActivity, record_function
    dtype = torch.bfloat16
    os.makedirs(os.path.join(outdir, "layers"), exist_ok=True)
    rows = []
    for name, h, heads, tp, seq, mb, layers in configs:
        if past(deadline):
            log("layers: deadline reached before %s" % name)
            break
        st = LayerStack(h, heads, tp, seq, mb, layers, device, dtype)
        fwd_s, _ = clock.median(lambda: st.forward(), min_reps=5, max_reps=20, target_s=0.2,
                                warmup=3)
        step_s, reps = clock.median(st.step, min_reps=5, max_reps=20, target_s=0.5, warmup=3)
        acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device.type == "cuda" else [])
        with profile(activities=acts, record_shapes=True) as prof:   # warmed up above
            for i in range(2):
                with record_function("ProfilerStep#%d" % i):
                    st.step()
                clock.sync()
        raw = os.path.join(outdir, "layers", name + ".trace.json")
        prof.export_chrome_trace(raw)
        with open(raw, "rb") as f, gzip.open(raw + ".gz", "wb") as g:
            shutil.copyfileobj(f, g)
        os.remove(raw)
        rows.append([name, h, heads, tp, seq, mb, layers, "%.6f" % (fwd_s * 1e3),
                     "%.6f" % (step_s * 1e3), reps])
        log("layers: %s: forward %.3f ms, forward+backward %.3f ms" % (name, fwd_s * 1e3,
                                                                        step_s * 1e3))
        del st, prof
        if device.type == "cuda":
            torch.cuda.empty_cache()
    with open(os.path.join(outdir, "layers.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["name", "hidden", "heads", "tp", "seq", "micro_batch", "layers",
                    "forward_ms", "forward_backward_ms", "reps"])
        w.writerows(rows)


# ---------------------------------------------------------------------------------------------
def environment(device):
    def sh(cmd):
        try:
            return subprocess.run(cmd, shell=True, text=True, capture_output=True, timeout=20).stdout.strip()
        except Exception as e:  # the tool may be missing there
            return "error: %s" % e
    env = {"date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "torch": torch.__version__, "python": sys.version.split()[0],
           "platform": platform.platform(), "nproc": os.cpu_count(),
           "cpu": sh("lscpu | sed -n 's/^Model name: *//p'")}
    if device.type == "cuda":
        p = torch.cuda.get_device_properties(device)
        env.update({"device": p.name, "multiprocessors": p.multi_processor_count,
                    "memory_bytes": p.total_memory,
                    "l2_bytes": getattr(p, "L2_cache_size", None),
                    "capability": "%d.%d" % (p.major, p.minor),
                    "cuda": torch.version.cuda, "cublas": None,
                    "nvidia_smi": sh("nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,"
                                     "clocks.mem,power.limit,temperature.gpu --format=csv")})
    return env


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--quick", action="store_true", help="small shapes (testing this script)")
    ap.add_argument("--deadline-s", type=float, default=None)
    ap.add_argument("--parts", default="gemm,memory,launch,layers,gemm-graph,memory-graph,attention")
    a = ap.parse_args()
    device = torch.device(a.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        sys.exit("measure_gpu: no CUDA device (use --device cpu --quick to test the script)")
    os.makedirs(a.out, exist_ok=True)
    clock = Clock(device)
    parts = set(a.parts.split(","))

    def log(msg):
        print("[%6.1f s] %s" % (time.time() - T0, msg), flush=True)

    env = environment(device)
    log("device: %s" % env.get("device", "cpu"))
    if a.quick:
        hidden, tps, seqs, grid = [(256, 8)], [1, 2], [64, 128], [32, 64, 128]
        extra = [64, 128]
        mem_sizes = [1 << 12, 1 << 16]
        layer_configs = QUICK_LAYER_CONFIGS
    else:
        hidden, tps, seqs = GPT_HIDDEN, [1, 2, 4, 8], [2048, 4096, 8192]
        grid = [128, 256, 512, 1024, 2048, 4096, 8192, 16384]
        extra = [1024, 2048, 4096, 8192]
        mem_sizes = [1 << e for e in range(14, 30, 1)]
        layer_configs = LAYER_CONFIGS
    # peak first (the clocks' state after warm-up is what the sweep sees), then the shapes
    shapes = [("peak", "NN", grid[-2], grid[-2], grid[-2], 1, "bf16")]
    shapes += [s + ("bf16",) for s in gpt_shapes(hidden, tps, seqs)]
    shapes += [s + ("bf16",) for s in grid_shapes(grid)]
    shapes += [("square", "NN", n, n, n, 1, dt) for dt in ("fp16", "fp32", "tf32") for n in extra]
    if device.type == "cpu":
        shapes = [x for x in shapes if x[-1] != "fp16"]   # no half-precision CPU products
    frac = lambda f: a.deadline_s * f if a.deadline_s else None
    jobs = [("gemm", lambda: sweep_gemm(os.path.join(a.out, "gemm.csv"), shapes, clock, device,
                                        frac(0.45), log)),
            ("memory", lambda: sweep_memory(os.path.join(a.out, "memory.csv"), mem_sizes, clock,
                                            device, frac(0.6), log)),
            ("launch", lambda: measure_launch(os.path.join(a.out, "launch.csv"), device, clock, log)),
            ("layers", lambda: measure_layers(a.out, layer_configs, device, clock, a.deadline_s, log))]
    # the small kernels again, replayed from CUDA graphs (device time without the host's launch)
    small = [x for x in shapes if 2 * x[2] * x[3] * x[4] * x[5] <= SMALL_FLOP]
    jobs += [("gemm-graph", lambda: sweep_gemm(os.path.join(a.out, "gemm_graph.csv"), small, clock,
                                               device, frac(0.9), log, graph=True)),
             ("memory-graph", lambda: sweep_memory(os.path.join(a.out, "memory_graph.csv"),
                                                   [n for n in mem_sizes if n <= SMALL_ELEMENTS],
                                                   clock, device, frac(1.0), log, graph=True))]
    att = ([64, 128], [2, 4], [32]) if a.quick else ([2048, 4096, 8192], [4, 8, 12, 16, 32, 64], [128])
    jobs.append(("attention", lambda: measure_attention(os.path.join(a.out, "attention.csv"), *att,
                                                        clock, device, a.deadline_s, log)))
    failed = []
    for name, job in jobs:
        if name not in parts:
            continue
        try:   # a part that fails leaves the others' data
            job()
        except Exception as e:
            import traceback
            traceback.print_exc()
            log("%s: FAILED: %s" % (name, e))
            failed.append(name)
    env["failed_parts"] = failed
    if device.type == "cuda":
        env["nvidia_smi_after"] = environment(device)["nvidia_smi"]
    env["wall_s"] = round(time.time() - T0, 1)
    with open(os.path.join(a.out, "env.json"), "w") as f:
        json.dump(env, f, indent=1)
    log("done")


if __name__ == "__main__":
    main()
