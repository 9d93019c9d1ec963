"""Checks of notebook 06 (sharded data parallel): what its test cells call, so that each cell
reads as the contract.

Each check raises an AssertionError whose message is what the learner reads. The checks run
where the test cell runs: in the learner's own kernel (Validate) on the learner's functions
themselves, in trusted grading in the judge, on its proxies of them (``labkit.judge``). The
worker pool the learner's training functions run in is made where that code runs, by the
test cell (``learner_side("labkit.judge.pool").shared_pool(2)``), and the bytes and memory are
read from outside its processes (``labkit.judge.traffic.Meter``): both are handed to the checks. The
notebook's given code they need (``make_model``, ``ddp_data``, ``make_block``) is handed to them
too, so the judge runs the instructor's copy of it. Expected values are computed here.
"""

from __future__ import annotations

from typing import Any, Callable

import torch

from labkit.checks.allreduce import one_report_per_rank

# gloo's messages of one allreduce of 32+ elements between 2 ranks: 576 bytes, and up to about
# 1.5 times that when the ranks' timing differs (a busy machine); now and then (3 runs in 300
# of 2 steps on a loaded machine) one collective sends several times that: so the bytes of a
# case are checked on the better of two runs, which a wrong plan fails both times
PER_COLLECTIVE = (400, 1200)
# one DDP step of the width-512 model in float64 takes a rank's resident memory 4.5 to 4.8 times
# its gradients above where it began (measured, 2 ranks, one bucket): the one-step baseline of
# holds_one_step_at_a_time may not go above this multiple
ONE_STEP_PEAK = 7


class DdpCheck:
    """ddp_train_(params, X, y, lr, bucket_cap_bytes) on 2 ranks of pool, against the averaged
    data-parallel step computed here; its bytes and its CPU time read from outside by meter."""

    def __init__(self, pool: Any, meter: Any, ddp_train_: Callable, make_model: Callable, ddp_data: Callable):
        self.pool, self.meter, self.train = pool, meter, ddp_train_
        self.make_model, self.ddp_data = make_model, ddp_data

    def reference(self, start, X, y, lr):
        """Every rank's step computed here: gradients added over ranks, divided by 2, then torch.optim.SGD."""
        threads = torch.get_num_threads()
        torch.set_num_threads(1)  # as the workers
        try:
            models = [self.make_model() for _ in X]
            for m in models:
                with torch.no_grad():
                    for p, q in zip(m.parameters(), start):
                        p.copy_(q)
            opts = [torch.optim.SGD(m.parameters(), lr=lr) for m in models]
            steps, micro = X[0].shape[:2]
            for s in range(steps):
                for m, o, xr, yr in zip(models, opts, X, y):
                    o.zero_grad()
                    for k in range(micro):
                        (torch.nn.functional.cross_entropy(m(xr[s, k]), yr[s, k]) / micro).backward()
                for ps in zip(*[m.parameters() for m in models]):
                    total = ps[0].grad.clone()
                    for p in ps[1:]:
                        total += p.grad
                    for p in ps:
                        p.grad.copy_(total / len(models))
                for o in opts:
                    o.step()
            return [p.detach().clone() for p in models[0].parameters()]
        finally:
            torch.set_num_threads(threads)


    def matches_the_averaged_step(self, steps, micro, batch, lr, cap, seed, buckets):
        """The parameters of both ranks against the averaged step; each rank's bytes against `buckets` allreduces a step."""
        what = f"2 ranks, {steps} steps of {micro} micro-batch(es) of {batch}, lr {lr}, bucket_cap_bytes {cap}"
        start = [p.detach().clone() for p in self.make_model(seed).parameters()]
        X, y = self.ddp_data(2, steps, micro, batch, seed)
        expected = self.reference(start, X, y, lr)
        names = [n for n, _ in self.make_model().named_parameters()]
        grads = sum(p.numel() * p.element_size() for p in start)
        for attempt in range(2):  # the bytes on the better of two runs: see PER_COLLECTIVE
            with self.meter.watch() as flows:
                reports = self.pool.call(self.train, [([p.clone() for p in start], X[r], y[r], lr, cap) for r in range(2)])
            for r, report in enumerate(one_report_per_rank(reports, 2, what)):
                kept = report["args"][0]
                assert isinstance(kept, list) and len(kept) == len(expected), (
                    f"{what}, rank {r}: the list of parameters given to ddp_train_ holds "
                    f"{len(kept) if isinstance(kept, list) else kept!r} after the call, not the model's {len(expected)}: "
                    "ddp_train_ writes the final parameters into the tensors it was given and leaves their list as it was")
                for name, mine, want in zip(names, kept, expected):
                    assert torch.equal(mine, want), (
                        f"{what}, rank {r}: {name} differs from the averaged data-parallel step (max difference "
                        f"{(mine - want).abs().max().item():.3g}; ratio of the updates {((mine - start[names.index(name)]).norm() / (want - start[names.index(name)]).norm()).item():.4g})")
            wrong = []
            for r in range(2):
                sent = flows.to(r, 1 - r)
                data_low, low, high = steps * grads, steps * (grads + buckets * PER_COLLECTIVE[0]), steps * (grads + buckets * PER_COLLECTIVE[1])
                if sent < data_low:
                    wrong.append(f"{what}, rank {r}: sent {sent} bytes; averaging {grads} bytes of gradients between 2 "
                                 f"ranks sends at least that much per step: {data_low} for {steps} steps")
                elif not low <= sent <= high:
                    wrong.append(
                        f"{what}, rank {r}: sent {sent} bytes; expected {steps} step(s) x ({grads} bytes of gradients + {buckets} "
                        f"bucket allreduce(s) x {PER_COLLECTIVE[0]}..{PER_COLLECTIVE[1]} bytes of messages) = {low}..{high}. "
                        "More: an allreduce per parameter, or communication inside no_sync(); less: fewer buckets than bucket_plan's")
            if not wrong:
                return
        raise AssertionError(wrong[0] + " (the same in two runs)")


    def holds_one_step_at_a_time(self, width=512, steps=6, seed=3):
        """Per rank, how high resident memory goes in `steps` steps against in one step (read from outside):
        finish() lets go of what each step's allreduces used, so more steps hold no more."""
        start = [p.detach().clone() for p in self.make_model(seed, width=width).parameters()]
        X, y = self.ddp_data(2, steps, 1, 4, seed)
        grads = sum(p.numel() * p.element_size() for p in start)

        def args(k):
            return [([p.clone() for p in start], X[r][:k], y[r][:k], 0.125, 10**9) for r in range(2)]

        one, many = self.meter.peaks(self.train, args(1)), self.meter.peaks(self.train, args(steps))
        for r in range(2):
            # the baseline is the answer's own run: held to what one step needs (the model, its gradients, a
            # bucket's buffer, activations: 4.5 to 4.8 times the gradients here), so that a buffer the one-step
            # run touches and frees cannot lift it over what six steps keep
            assert one[r] <= ONE_STEP_PEAK * grads, (
                f"width {width}, one bucket, rank {r}: one step took resident memory {one[r] / 2**20:.2f} MiB above "
                f"where it began (read from outside), more than {ONE_STEP_PEAK} times the step's gradients "
                f"({grads / 2**20:.2f} MiB): a step needs the model, its gradients, the bucket's buffer and the "
                "activations, no more")
            grew = many[r] - one[r]
            assert grew < grads, (
                f"width {width}, one bucket, rank {r}: {steps} steps took resident memory {grew / 2**20:.2f} MiB higher "
                f"than one step did (read from outside; a step's gradients are {grads / 2**20:.2f} MiB): something of "
                "every step stays alive after finish(), such as the handles and bucket buffers of earlier steps")


    def _main_thread_cpu(self, pid):
        """The CPU time this process's main thread has used so far, from /proc."""
        with open(f"/proc/{pid}/task/{pid}/schedstat") as f:
            return int(f.read().split()[0])


    def _cpu_before_first_byte(self, width, batch, cap, seed, first_bytes=1):
        """Per rank: the share of the call's main-thread CPU time used by the time the meter's snapshots of the ranks'
        sockets (taken one after another, tens of ms apart) first show ``first_bytes`` bytes from the rank to the
        other: the CPU time sampled every half millisecond, read at the end of that snapshot (a bound from above, by at
        most a snapshot's time; nothing the rank writes elsewhere counts). Also the bytes each rank sent the other in
        the whole call."""
        import threading
        import time

        start = [p.detach().clone() for p in self.make_model(seed, width=width).parameters()]
        X, y = self.ddp_data(2, 1, 1, batch, seed)
        samples, snaps, done = [[] for _ in self.meter.pids], [], threading.Event()

        def watch():
            while not done.is_set():
                for r, pid in enumerate(self.meter.pids):
                    samples[r].append((time.monotonic(), self._main_thread_cpu(pid)))
                time.sleep(0.0005)

        def snapshots():
            while not done.is_set():
                began = time.monotonic()
                snaps.append((began, self.meter.snapshot(), time.monotonic()))

        began = time.monotonic()
        snaps.append((began, self.meter.snapshot(), time.monotonic()))
        threads = [threading.Thread(target=f, daemon=True) for f in (watch, snapshots)]
        for t in threads:
            t.start()
        try:
            self.pool.call(self.train, [([p.clone() for p in start], X[r], y[r], 0.5, cap) for r in range(2)])
        finally:
            done.set()
            for t in threads:
                t.join()
        began = time.monotonic()
        snaps.append((began, self.meter.snapshot(), time.monotonic()))
        shares, totals = [], []
        for r, seen in enumerate(samples):
            (_, c0), (_, c_end) = seen[0], seen[-1]
            sent = [self.meter.between(snaps[0][1], snap).to(r, 1 - r) for _, snap, _ in snaps]
            k = next((k for k, b in enumerate(sent) if b >= first_bytes), None)
            shown = snaps[k][2] if k is not None else float("inf")  # the first bytes had left by then
            first = next((c for t, c in seen if t >= shown), c_end)
            shares.append((first - c0) / max(1, c_end - c0))
            totals.append(sent[-1])
        return shares, totals


    def sends_during_backward(self, width=128, batch=16384, cap=1000, buckets=None, first_bucket=2):
        """Communication starts during backward: at most 85% of the call's CPU time used before half of the first
        bucket's bytes (``first_bucket``: the gradient bytes of the bucket backward fills first; a 2-rank allreduce
        sends its first half at once) have gone to the other rank; an answer that sends nothing before finish() is
        above it (its backward is over). With ``buckets``, a call counts only if its bytes are the gradients plus one
        collective's messages per bucket, so that the first bytes are a bucket's, not those of a collective of its own
        (choose a model whose first bucket's half is more than the buckets' allowance, PER_COLLECTIVE[1] - 576 bytes
        each). A rank's communication thread can be late to run on a loaded machine, so two calls, either rank."""
        grads = sum(p.numel() * p.element_size() for p in self.make_model(width=width).parameters())
        tries = [self._cpu_before_first_byte(width, batch, cap, seed, first_bucket // 2) for seed in (3, 4)]
        what = f"width {width}, batch {batch}, bucket_cap_bytes {cap}"
        fair = [shares for shares, _ in tries]
        if buckets is not None:
            low, high = grads + buckets * PER_COLLECTIVE[0], grads + buckets * PER_COLLECTIVE[1]
            fair = [shares for shares, sent in tries if all(low <= b <= high for b in sent)]
            assert fair, (f"{what}: the ranks sent {', then '.join('/'.join(str(b) for b in sent) for _, sent in tries)} "
                          f"bytes (rank 0/rank 1, two calls); expected {grads} bytes of gradients + {buckets} bucket "
                          f"allreduce(s) x {PER_COLLECTIVE[0]}..{PER_COLLECTIVE[1]} bytes of messages = {low}..{high}: "
                          "communicate the buckets' allreduces and nothing else")
        assert min(min(t) for t in fair) <= 0.85, (
            f"{what}: each rank had used "
            + ", then ".join("/".join(f"{s:.0%}" for s in t) for t in fair)
            + " of the call's CPU time (rank 0/rank 1) before its first bucket's bytes went out: nothing was sent "
            "until backward was over. Start each bucket's allreduce from the hook of its last gradient, not in finish()")


class ZeroCheck:
    """zero_train_(seed, width, X, y, lr, stage, out) on 2 ranks of pool, against DDP +
    torch.optim.Adam computed here; each rank's resident memory read from outside by meter."""

    def __init__(self, pool: Any, meter: Any, zero_train_: Callable, make_model: Callable):
        self.pool, self.meter, self.train, self.make_model = pool, meter, zero_train_, make_model

    def _flat(self, tensors):
        numel = sum(t.numel() for t in tensors)
        return torch.cat([t.detach().reshape(-1) for t in tensors] + [torch.zeros(numel % 2, dtype=torch.float64)])


    def adam_reference(self, start, X, y, lr, width, betas=(0.9, 0.999), eps=1e-8):
        """DDP + torch.optim.Adam, here: both ranks' gradients, their mean, one Adam; flat padded params and state."""
        threads = torch.get_num_threads()
        torch.set_num_threads(1)  # as the workers
        try:
            models = [self.make_model(width=width) for _ in X]
            for m in models:
                with torch.no_grad():
                    for p, q in zip(m.parameters(), start):
                        p.copy_(q)
            adam = torch.optim.Adam(models[0].parameters(), lr=lr, betas=betas, eps=eps)
            for s in range(X[0].shape[0]):
                for m, xr, yr in zip(models, X, y):
                    m.zero_grad(set_to_none=True)
                    torch.nn.functional.cross_entropy(m(xr[s]), yr[s]).backward()
                for p0, p1 in zip(models[0].parameters(), models[1].parameters()):
                    p0.grad = (p0.grad + p1.grad) / 2
                adam.step()
                with torch.no_grad():
                    for p0, p1 in zip(models[0].parameters(), models[1].parameters()):
                        p1.copy_(p0)
            params = list(models[0].parameters())
            return {"params": self._flat(params), "exp_avg": self._flat([adam.state[p]["exp_avg"] for p in params]),
                    "exp_avg_sq": self._flat([adam.state[p]["exp_avg_sq"] for p in params])}
        finally:
            torch.set_num_threads(threads)


    def _data(self, steps, batch, width, seed, ranks=2):
        g = torch.Generator().manual_seed(seed)
        start = [p.detach().clone() for p in self.make_model(seed=seed, width=width).parameters()]
        X = [torch.randn(steps, batch, 8, generator=g, dtype=torch.float64) for _ in range(ranks)]
        y = [torch.randint(0, 3, (steps, batch), generator=g) for _ in range(ranks)]
        return start, X, y


    def matches_ddp_adam(self, stage, steps, batch, lr, width, seed, betas=(0.9, 0.999), eps=1e-8):
        what = f"stage {stage}, 2 ranks, {steps} step(s) of batch {batch}, lr {lr}, width {width}"
        if (betas, eps) != ((0.9, 0.999), 1e-8):
            what += f", betas {betas}, eps {eps}"
        start, X, y = self._data(steps, batch, width, seed)
        want = self.adam_reference(start, X, y, lr, width, betas, eps)
        reports = self.pool.call(self.train, [(seed, width, X[r], y[r], lr, stage, {}, betas, eps) for r in range(2)])
        self.pool.release()
        shard = want["params"].numel() // 2
        for r, report in enumerate(one_report_per_rank(reports, 2, what)):
            out = report["args"][6]
            for key in ("params", "exp_avg", "exp_avg_sq"):
                expected = want[key][r * shard:(r + 1) * shard]
                got = out.get(key)
                assert isinstance(got, torch.Tensor) and got.shape == expected.shape and got.dtype == expected.dtype, (
                    f"{what}, rank {r}: {key} shard should be a float64 tensor of {shard} elements (ceil(numel / 2)), "
                    f"got {got.dtype if isinstance(got, torch.Tensor) else type(got).__name__} "
                    f"{tuple(got.shape) if isinstance(got, torch.Tensor) else ''}")
                if not torch.allclose(got, expected, rtol=1e-9, atol=1e-15):
                    k = int((got - expected).abs().argmax())
                    raise AssertionError(
                        f"{what}, rank {r}: {key} differs from DDP + torch.optim.Adam's at element {k} of the shard "
                        f"(flat element {r * shard + k}): {got[k].item():.10g}, expected {expected[k].item():.10g}; "
                        f"ratio of the shards' norms {(got.norm() / expected.norm()).item():.6g}")


    def _promised(self, numel, stage, ranks=2):
        """What a rank keeps between steps (float64, Adam): the table of Exercise 4."""
        full, shard = numel * 8, -(-numel // ranks) * 8
        return {"parameters": shard if stage == 3 else full, "gradients": full if stage == 1 else shard,
                "Adam state": 2 * shard}


    def keeps_what_the_stage_keeps(self, stage, width=512, steps=2, ranks=2):
        """Resident memory from /proc: what zero_train_ returned is kept alive in the worker until released. The
        pool's size is ``ranks``."""
        what = f"stage {stage}, {ranks} ranks, width {width} (float64)"
        start, X, y = self._data(steps, 4, width, 5, ranks)
        kept, _ = self.meter.keeps(self.train, [(5, width, X[r], y[r], 1e-3, stage, {}) for r in range(ranks)])
        numel = sum(p.numel() for p in start)
        # a shard is 1 MiB on 2 ranks, 0.5 MiB on 4; what is kept is measured to 0.05 MiB
        promised, slack = self._promised(numel, stage, ranks), 2**18
        for r in range(ranks):
            assert kept[r] <= sum(promised.values()) + slack, (
                f"{what}, rank {r}: keeps {kept[r] / 2**20:.2f} MiB between steps (resident memory, read from outside the "
                f"process); the stage keeps " + " + ".join(f"{k} {v / 2**20:.2f}" for k, v in promised.items())
                + f" = {sum(promised.values()) / 2**20:.2f} MiB (+{slack / 2**20:g} MiB allowed). Look for a full "
                "tensor that should be a shard, a second copy of the parameters, or a view that keeps a big buffer alive")


class FsdpCheck:
    """fsdp_train_(seed, width, depth, X, Y, lr, out) on 2 ranks of pool, against one process's
    SGD computed here; each rank's resident memory read from outside by meter."""

    def __init__(self, pool: Any, meter: Any, fsdp_train_: Callable, make_block: Callable):
        self.pool, self.meter, self.train, self.make_block = pool, meter, fsdp_train_, make_block

    def _padded(self, tensors):
        flat = torch.cat([t.detach().reshape(-1) for t in tensors])
        return torch.cat([flat, torch.zeros(flat.numel() % 2, dtype=flat.dtype)])


    def _fsdp_data(self, steps, batch, width, seed):
        g = torch.Generator().manual_seed(seed)
        X = [torch.randn(steps, batch, width, generator=g, dtype=torch.float64) for _ in range(2)]
        Y = [torch.randn(steps, batch, width, generator=g, dtype=torch.float64) for _ in range(2)]
        return X, Y


    def sgd_reference(self, seed, width, depth, X, Y, lr):
        """One process on the whole batch (both ranks' halves): each block's flat, padded parameters after SGD."""
        threads = torch.get_num_threads()
        torch.set_num_threads(1)  # as the workers
        try:
            blocks = [self.make_block(seed, i, width) for i in range(depth)]
            model = torch.nn.Sequential(*blocks)
            for s in range(X[0].shape[0]):
                model.zero_grad(set_to_none=True)
                loss = torch.nn.functional.mse_loss(model(torch.cat([x[s] for x in X])), torch.cat([y[s] for y in Y]))
                loss.backward()
                with torch.no_grad():
                    for p in model.parameters():
                        p -= lr * p.grad
            with torch.no_grad():
                outputs = [model(x[0]) for x in X]
            return [self._padded(list(b.parameters())) for b in blocks], outputs
        finally:
            torch.set_num_threads(threads)


    def matches_one_process_sgd(self, depth, width, steps, batch, lr, seed):
        what = f"{depth} block(s) of width {width}, 2 ranks, {steps} step(s) of batch {batch} a rank, lr {lr}"
        X, Y = self._fsdp_data(steps, batch, width, seed)
        want, outputs = self.sgd_reference(seed, width, depth, X, Y, lr)
        reports = self.pool.call(self.train, [(seed, width, depth, X[r], Y[r], lr, {}) for r in range(2)])
        self.pool.release()
        for r, report in enumerate(one_report_per_rank(reports, 2, what)):
            got_all = report["args"][6].get("params")
            evaluated = report["args"][6].get("eval")
            for i, full in enumerate(want):
                shard = full.numel() // 2
                expected, got = full[r * shard:(r + 1) * shard], got_all[i]
                assert isinstance(got, torch.Tensor) and got.shape == expected.shape and got.dtype == expected.dtype, (
                    f"{what}, rank {r}, block {i}: param_shard should be a float64 tensor of {shard} elements "
                    f"(ceil(numel / 2), the block's own vector), got "
                    f"{got.dtype if isinstance(got, torch.Tensor) else type(got).__name__} "
                    f"{tuple(got.shape) if isinstance(got, torch.Tensor) else ''}")
                if not torch.allclose(got, expected, rtol=1e-9, atol=1e-15):
                    k = int((got - expected).abs().argmax())
                    raise AssertionError(
                        f"{what}, rank {r}, block {i}: param_shard differs from one process's SGD on both ranks' batches "
                        f"at element {k} of the shard: {got[k].item():.10g}, expected {expected[k].item():.10g}")
            expected = outputs[r]
            same = isinstance(evaluated, torch.Tensor) and evaluated.shape == expected.shape
            assert same and torch.allclose(evaluated, expected, rtol=1e-9, atol=1e-15), (
                f"{what}, rank {r}: the trained model's output on X[0] under torch.no_grad() (evaluation) is not the "
                "model's output with the full, current parameters: "
                + (f"max difference {(evaluated - expected).abs().max().item():.3g}" if same else
                   f"got {type(evaluated).__name__} {tuple(getattr(evaluated, 'shape', ()))}, expected shape "
                   f"{tuple(expected.shape)}"))


    def keeps_shards_and_a_few_blocks(self, width=256, depth=16, steps=1):
        """Kept after a step and the peak of a call (model built, a step), per rank, from /proc."""
        what = f"{depth} blocks of width {width}, 2 ranks (float64)"
        X, Y = self._fsdp_data(steps, 4, width, 3)
        args = [(3, width, depth, X[r], Y[r], 1e-3, None) for r in range(2)]
        sizes = [(width * width + (width if i % 2 == 0 else 0)) * 8 for i in range(depth)]
        shards = sum(2 * -(-n // 16) * 8 for n in sizes)  # each block's parameter and gradient shards
        block, slack = max(sizes), 2**20
        kept, _ = self.meter.keeps(self.train, args)
        peak = self.meter.peaks(self.train, args)
        for r in range(2):
            assert kept[r] <= shards + slack, (
                f"{what}, rank {r}: keeps {kept[r] / 2**20:.2f} MiB between steps (resident memory, read from outside the "
                f"process); its parameter and gradient shards are {shards / 2**20:.2f} MiB (+{slack / 2**20:g} allowed). "
                "Look for full gradients or a gathered block left alive after the step, or a shard that is a view of a "
                "full tensor")
            assert peak[r] <= shards + 6 * block + slack, (
                f"{what}, rank {r}: its resident memory rose {peak[r] / 2**20:.2f} MiB during a call at its peak (read "
                f"from outside the process); allowed: the shards {shards / 2**20:.2f} + 6 blocks {6 * block / 2**20:.2f} "
                f"+ {slack / 2**20:g} MiB; the whole model is {sum(sizes) / 2**20:.2f} MiB. Is each block freed after its "
                "forward? (autograd's view of a weight keeps its storage alive unless the storage itself is freed)")
