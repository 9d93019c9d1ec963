"""Checks of notebook 05 (mixed precision): what its test cells call, so that each cell reads as
the contract.

Each check raises an AssertionError whose message is what the learner reads. The checks run
where the test cell runs: in the learner's own kernel (Validate) on the learner's functions
and classes themselves, in trusted grading in the judge, on its proxies of them
(``labkit.judge``): a model, an optimizer or a scaler the learner's code works on is made
where that code runs, from library classes only (``learner_side``), and read back as values.
Expected values are computed here, from copies made before the call.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import torch
import torch.nn.functional as F

from labkit.checks import check_close, check_equal
from labkit.judge.handles import learner_side

INF, NAN = float("inf"), float("nan")
HERE = (torch.nn, torch.optim)


def there() -> tuple[Any, Any]:
    """torch.nn and torch.optim where the learner's code runs (``build``'s other place)."""
    return learner_side("torch.nn"), learner_side("torch.optim")


def scaler_reads(scaler: Any) -> list:
    """The calls that read a scaler where the learner's code runs: its (scale_value,
    _growth_tracker), and what its scale() makes of a float64 one (the scale it uses)."""
    return [(learner_side("operator").attrgetter("scale_value", "_growth_tracker"), scaler),
            (scaler.scale, torch.ones((), dtype=torch.float64))]


def scaler_state(state: Any, scaled: Any, when: str) -> Any:
    """(scale_value, _growth_tracker), once scale() is seen to use scale_value: the scale graded is
    the one the scaler multiplies by, not only the one it shows."""
    try:
        used = float(scaled)
    except (TypeError, ValueError, RuntimeError):
        raise AssertionError(f"{when}: scale(torch.ones((), dtype=torch.float64)) must return the loss times "
                             f"the scale, a tensor; got {type(scaled).__name__}") from None
    shown = state[0] if isinstance(state, tuple) and len(state) == 2 else None
    if not isinstance(shown, (int, float)) or isinstance(shown, bool):  # a tensor would compare equal to a float
        raise AssertionError(f"{when}: scale_value must be a Python float, got {type(shown).__module__}."
                             f"{type(shown).__name__}: {shown!r}")
    assert math.isclose(used, shown, rel_tol=1e-6), (
        f"{when}: scale() multiplies by {used!r} but scale_value is {shown!r}: scale() and unscale_() must use "
        "scale_value, the scale update() keeps")
    return state


def read_there(calls: list) -> list:
    """Each (function, *args) of calls, called where the learner's code runs, all in one round
    trip (library functions only, no test code runs there); their results as values."""
    starmap, builtins = learner_side("itertools").starmap, learner_side("builtins")
    return builtins.list(starmap(learner_side("operator").call, calls))


class UnscaleCheck:
    """unscale_grads_(params, scale) on parameters made here."""

    def __init__(self, unscale_grads_: Callable):
        self.unscale = unscale_grads_

    def case(self, grad_lists: list, scale: float) -> tuple[Any, list, list]:
        """Parameters whose .grad hold these values (None: no .grad) through
        unscale_grads_(params, scale): (what it returned, what each .grad's own memory holds
        after it, whether each .grad still is that memory). The parameters are made where the
        learner's code runs, from library calls only, and each .grad is memory the judge reads
        itself (``labkit.judge.outside.JudgeMapped``): a gradient given new memory
        (``p.grad.data = ...``, ``p.grad = ...``) leaves the memory it was given as it was,
        whatever the learner's kernel reports of it."""
        from labkit.judge.outside import JudgeMapped

        lb, lt = learner_side("builtins"), learner_side("torch")
        chain, repeat = learner_side("itertools").chain, learner_side("itertools").repeat
        deque, partial = learner_side("collections").deque, learner_side("functools").partial
        graded = [i for i, values in enumerate(grad_lists) if values is not None]
        bare = [i for i, values in enumerate(grad_lists) if values is None]
        mapped = JudgeMapped([torch.tensor(grad_lists[i], dtype=torch.float32) for i in graded])
        try:
            with_grad = deque(lb.map(lt.nn.Parameter, lb.map(lt.zeros, [len(grad_lists[i]) for i in graded])))
            deque(lb.map(lb.setattr, with_grad, repeat("grad"), chain.from_iterable(mapped.there)), 0)
            without = deque(lb.map(lt.nn.Parameter, lb.map(lt.zeros, [1] * len(bare))))
            # Each .grad tensor also goes in the list (it has no .grad of its own, so it is skipped):
            # an unscale_grads_ that divides p.grad in place changes that very tensor.
            listed = deque(lb.map(lb.list, lb.iter([chain(with_grad, without, chain.from_iterable(mapped.there))])))
            found_inf, = lb.list(lb.map(partial(self.unscale, scale=scale), listed))
            reported = lb.list(lb.map(learner_side("operator").attrgetter("grad"), chain(with_grad, without)))
            memory = mapped.read()
        finally:
            mapped.close()
        after: list = [None] * len(grad_lists)
        in_place = [True] * len(grad_lists)
        for k, i in enumerate(graded):
            after[i] = memory[k]
            shown = reported[k]
            in_place[i] = isinstance(shown, torch.Tensor) and shown.shape == memory[k].shape and \
                torch.equal(shown.nan_to_num(), memory[k].nan_to_num())
        for k, i in enumerate(bare):
            after[i] = reported[len(graded) + k]
        return found_inf, after, in_place

    def finds(self, grad_lists: list, scale: float, want: bool, what: str) -> None:
        """unscale_grads_ returns want, as a Python bool."""
        found_inf = self.case(grad_lists, scale)[0]
        check_equal(found_inf, want, f"unscale_grads_ {what} returns")
        assert type(found_inf) is bool, f"return a Python bool, got a {type(found_inf).__name__}"

    def divides_in_place(self, values: list, scale: float, want: list) -> None:
        """The gradient values / scale, divided in the existing .grad."""
        _, grads_after, in_place = self.case([values], scale)
        assert in_place[0], ("divide the existing .grad in place (p.grad.div_): the memory the gradient was given "
                             "does not hold what p.grad shows after the call, so p.grad (or its .data) was replaced")
        check_close(grads_after[0], torch.tensor(want), f"the gradient {values} after unscale_grads_(.., {scale}), "
                    "read from its own memory")


class ScalerCheck:
    """DynamicLossScaler(**kwargs) against torch.amp.GradScaler, update by update."""

    def __init__(self, scaler_class: type):
        self.scaler_class = scaler_class

    def fresh(self, value: float, scale_of_3: float) -> None:
        """A new scaler's scale_value, and scale(tensor([3.0]))."""
        scaler = self.scaler_class()
        check_equal(scaler.scale_value, value, "initial scale_value")
        check_equal(scaler.scale(torch.tensor([3.0])), torch.tensor([scale_of_3]), "scale(tensor([3.0]))")

    def trajectory(self, flags: list, kwargs: dict) -> list:
        """(scale_value, _growth_tracker) of a new DynamicLossScaler(**kwargs) after update(flag),
        for each flag in turn, all read in one round trip."""
        scaler = self.scaler_class(**kwargs)
        update, reads = scaler.update, scaler_reads(scaler)
        results = read_there([call for bad in flags for call in [(update, bad)] + reads])
        returned = [r for r in results[0::3] if r is not None]
        assert not returned, f"update(found_inf) returns None; yours returned {returned[:3]}"
        return [scaler_state(state, scaled, f"after update {k}")
                for k, (state, scaled) in enumerate(zip(results[1::3], results[2::3]))]

    @staticmethod
    def gradscaler(flags: list, kwargs: dict) -> list:
        """(scale, growth tracker) of torch.amp.GradScaler(**kwargs) after each step, with an inf
        gradient where flags say."""
        p = torch.nn.Parameter(torch.zeros(1))
        opt = torch.optim.SGD([p], lr=0.0)
        reference = torch.amp.GradScaler("cpu", **kwargs)
        reference.scale(torch.ones(()))  # creates its scale tensor
        states = []
        for bad in flags:
            p.grad = torch.full((1,), float("inf") if bool(bad) else 1.0)
            reference.step(opt)  # unscales, finds inf, skips the step if needed
            reference.update()
            states.append((reference.get_scale(), int(reference._growth_tracker.item())))
        return states

    def follows_gradscaler(self, flags: list, **kwargs: Any) -> None:
        """After every update, the scale and the good-step count GradScaler holds."""
        mine, ref = self.trajectory(list(flags), kwargs), self.gradscaler(flags, kwargs)
        shown = [int(bool(b)) for b in flags]
        assert len(mine) == len(ref), f"expected {len(ref)} states, one per update, got {len(mine)}"
        for step, ((m, mt), (r, rt)) in enumerate(zip(mine, ref)):
            assert type(m) is float and type(mt) is int, (
                f"scale_value must stay a Python float and _growth_tracker an int; after step {step} they are "
                f"{type(m).__name__} and {type(mt).__name__}")
            assert math.isclose(m, r, rel_tol=1e-6) and mt == rt, (
                f"with {kwargs} and overflow flags {shown[:60]}{'...' if len(shown) > 60 else ''}: after step {step} "
                f"GradScaler holds scale {r} with {rt} good steps counted, your scaler holds {m} with {mt} "
                f"(your scales: {[s for s, _ in mine][:step + 2]}; GradScaler's: {[s for s, _ in ref][:step + 2]})")


def digits_batch(n: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The first n images of the digits data set, flattened, and their labels."""
    from labkit import data

    X, y, _, _ = data.digits(flatten=True)  # noqa: N806
    return X[:n], y[:n]


def mlp_spec(seed: int, sizes: tuple = (64, 128, 128, 10), optimizer: tuple = ("SGD", {"lr": 0.5}),
             **extra: Any) -> dict:
    """A model of Linear layers with ReLU between them, its FP32 weights drawn from seed, as plain data
    (``norm=True``: a LayerNorm over the input first, named "norm")."""
    gen = torch.Generator().manual_seed(seed)
    state = {}
    if extra.get("norm"):
        state["norm.weight"] = 1 + (torch.rand(sizes[0], generator=gen) - 0.5) / 2
        state["norm.bias"] = (torch.rand(sizes[0], generator=gen) - 0.5) / 2
    for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
        state[f"{2 * i}.weight"] = (torch.rand(b, a, generator=gen) * 2 - 1) / a**0.5
        state[f"{2 * i}.bias"] = (torch.rand(b, generator=gen) * 2 - 1) / a**0.5
    return {"sizes": list(sizes), "state": state, "optimizer": optimizer, "loss_fn": F.cross_entropy, **extra}


def build(where: tuple, spec: dict) -> tuple[Any, Any, Any]:
    """(model, loss_fn, optimizer) from spec, made with the torch.nn and torch.optim of `where`:
    HERE (this kernel) or there() (where your code runs, from library classes only)."""
    nn, optim = where
    sizes, layers = spec["sizes"], []
    for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
        layers += [nn.Linear(a, b)] + ([nn.ReLU()] if i < len(sizes) - 2 else [])
    model = nn.Sequential()
    if spec.get("norm"):  # its first op takes the input as given: a cast of X before model(X) shows
        model.add_module("norm", nn.LayerNorm(sizes[0]))
    loss_fn, extra = spec["loss_fn"], []
    if "head" in spec:  # a loss with parameters of its own, behind an op autocast runs in FP32
        layers.append(nn.ReplicationPad1d((0, 0)))
        loss_fn = nn.Bilinear(sizes[-1], spec["head"]["weight"].shape[2], 1)
        loss_fn.load_state_dict(spec["head"])
        extra = [{"params": loss_fn.parameters()}]
    for k, layer in enumerate(layers):
        model.add_module(str(k), layer)
    model.load_state_dict(spec["state"])
    name, kwargs = spec["optimizer"]
    if spec.get("lrs"):  # one parameter group per Linear layer, each with its learning rate
        groups = [{"params": model.get_submodule(str(2 * i)).parameters(), "lr": lr}
                  for i, lr in enumerate(spec["lrs"])]
    else:
        groups = [{"params": model.parameters()}]
    return model, loss_fn, getattr(optim, name)(groups + extra, **kwargs)


def frozen(x: Any) -> Any:
    """x with every tensor in it copied (a value, whatever happens to the original later)."""
    if isinstance(x, torch.Tensor):
        return x.detach().clone()
    if isinstance(x, dict):
        return {k: frozen(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(frozen(v) for v in x)
    return x


def flat(weights: dict) -> torch.Tensor:
    return torch.cat([w.flatten() for w in weights.values()])


def forward_loss(spec: dict, X: torch.Tensor, y: torch.Tensor, dtype: Any) -> float:  # noqa: N803
    """loss_fn(model(X), y) of spec's model here, under autocast(dtype) (None: plain FP32)."""
    model, loss_fn, _ = build(HERE, spec)
    with torch.autocast("cpu", dtype=dtype or torch.float16, enabled=dtype is not None):
        return loss_fn(model(X), y).item()


def fp32_change(spec: dict, X: torch.Tensor, y: torch.Tensor) -> torch.Tensor:  # noqa: N803
    """Weight change of one plain FP32 step of spec's model and optimizer (no autocast, no scale)."""
    model, loss_fn, opt = build(HERE, spec)
    before = flat(frozen(model.state_dict()))
    opt.zero_grad()
    loss_fn(model(X), y).backward()
    opt.step()
    return flat(frozen(model.state_dict())) - before


def check_skipped(before: dict, after: dict, what: str) -> None:
    """A skipped step: flag False, weights and every optimizer state tensor exactly as before."""
    check_equal(after["result"][1], False, f"{what}: stepped")
    for name, w in before["weights"].items():
        check_equal(after["weights"][name], w, f"{what}: {name} (must be untouched)")
    assert after["state"].keys() == before["state"].keys(), (
        f"{what}: the optimizer's state had entries for parameters {sorted(before['state'])}, now {sorted(after['state'])}")
    changed = [f"param {i}, {key}" for i, st in before["state"].items() for key, v in st.items()
               if key not in after["state"][i] or not torch.equal(torch.as_tensor(v), torch.as_tensor(after["state"][i][key]))]
    assert not changed, (f"{what}: expected the optimizer state untouched on a skipped step, "
                         f"but these changed: {changed[:4]}")


class StepCheck:
    """mixed_precision_step(model, opt, scaler, loss_fn, X, y[, dtype]) on models made where the
    learner's code runs (``build(there(), spec)``), with the learner's DynamicLossScaler."""

    def __init__(self, mixed_precision_step: Callable, scaler_class: type):
        self.step, self.scaler_class = mixed_precision_step, scaler_class

    def steps(self, spec: dict, steps: list) -> list:
        """mixed_precision_step on build(there(), spec), once per step: X, y, dtype if given, and
        a new DynamicLossScaler(**step["scaler"]) where a step has "scaler" (else the last one
        goes on). After each: the returned (loss, stepped), the weights, the optimizer's state
        and the scaler's (scale_value, _growth_tracker), as values."""
        model, loss_fn, opt = build(there(), spec)
        attrgetter = learner_side("operator").attrgetter
        names = list(spec["state"])
        reads = [(attrgetter(*names), model), (opt.state_dict,)]
        if "head" in spec:
            reads.append((attrgetter(*spec["head"]), loss_fn))
        records = []
        namespace = learner_side("types").SimpleNamespace
        for step in steps:
            if "scaler" in step:
                scaler = self.scaler_class(**step["scaler"])
                # the step is given what the contract names, scale, unscale_ and update, and no more
                given = namespace(scale=scaler.scale, unscale_=scaler.unscale_, update=scaler.update)
            extra = {"dtype": step["dtype"]} if "dtype" in step else {}
            result = self.step(model, opt, given, loss_fn, step["X"], step["y"], **extra)
            weights, opt_state, *head = frozen(read_there(reads + scaler_reads(scaler)))
            scaled = head.pop()
            state_of_scaler = scaler_state(head.pop(), scaled, f"after step {len(records)}")
            weights = dict(zip(names, weights))
            weights.update({f"head.{k}": v for k, v in zip(spec.get("head", {}), head[0] if head else ())})
            records.append({"result": result, "weights": weights, "state": opt_state["state"],
                            "scaler": state_of_scaler})
        return records

    def one(self, spec: dict, X: torch.Tensor, y: torch.Tensor, dtype: Any = None) -> OneStep:  # noqa: N803
        """One step of spec's model on (X, y) with a new DynamicLossScaler() (dtype: the default
        when None), to check."""
        step = {"X": X, "y": y, "scaler": {}, **({"dtype": dtype} if dtype is not None else {})}
        return OneStep(spec, X, y, dtype or torch.float16, self.steps(spec, [step])[0])

    def skips_overflow(self, spec: dict, X: torch.Tensor, y: torch.Tensor, scale: float,  # noqa: N803
                       scaler_after: tuple) -> None:
        """A good step, then a step with init_scale scale whose FP16 gradients overflow: skipped,
        weights and optimizer state exactly as before it, the scaler's (scale_value,
        _growth_tracker) then scaler_after."""
        good, skipped = self.steps(spec, [{"X": X, "y": y, "scaler": {}},
                                          {"X": X, "y": y, "scaler": {"init_scale": scale}}])
        check_equal(good["result"][1], True, "first step (scale 2^16) stepped")
        check_skipped(good, skipped, f"overflowing step (scale 2^{int(math.log2(scale))}) with "
                                     f"{spec['optimizer'][0]} {spec['optimizer'][1]}")
        check_equal(skipped["scaler"], scaler_after, "(scale, good steps) after the overflow")


class OneStep:
    """One step's record, and what it should be."""

    def __init__(self, spec: dict, X: torch.Tensor, y: torch.Tensor, dtype: Any, record: dict):  # noqa: N803
        self.spec, self.X, self.y, self.dtype, self.record = spec, X, y, dtype, record
        self.name = str(dtype).replace("torch.", "")

    def stepped(self) -> None:
        """Returned a tuple (loss, stepped), stepped True, a Python bool."""
        result = self.record["result"]
        assert isinstance(result, tuple) and len(result) == 2, (
            f"return the tuple (loss, stepped), got a {type(result).__name__}: {result!r}")
        stepped = result[1]
        check_equal(stepped, True, "stepped on a normal batch")
        assert type(stepped) is bool, f"return whether the optimizer stepped as a Python bool, got {type(stepped).__name__}"

    def loss_under_autocast(self) -> None:
        """The returned loss is the forward pass's under autocast in dtype, told apart from the others."""
        got, what = self.record["result"][0], f"returned loss with dtype={self.name}"
        assert type(got) is float, f"{what}: return the loss as a Python float (loss.item()), got {type(got).__name__}"
        losses = {dt: forward_loss(self.spec, self.X, self.y, dt) for dt in (torch.float16, torch.bfloat16, None)}
        close = [str(dt).replace("torch.", "") if dt else "float32 (no autocast)" for dt, v in losses.items()
                 if abs(got - v) <= 1e-5 * abs(v)]
        want = losses[self.dtype]
        assert abs(got - want) <= 1e-5 * abs(want), (
            f"{what}: expected the loss of a forward pass under autocast in {self.dtype}, {want!r}; got {got!r}"
            + (f", the loss of a forward pass in {close[0]}" if close else ""))

    def changes_weights_like_fp32(self, tol: float = 0.1) -> None:
        """Relative difference of the weight change from a plain FP32 step's,
        ||actual - expected|| / ||expected||, below tol."""
        actual = flat(self.record["weights"]) - flat(self.spec["state"])
        expected = fp32_change(self.spec, self.X, self.y)
        rel = ((actual - expected).norm() / expected.norm()).item()
        assert rel <= tol, (f"weight change of a {self.name} step: expected a change within {tol:.0%} of the FP32 "
                            f"step's (relative norm), got a relative difference of {rel:.3g} (norm "
                            f"{actual.norm().item():.3g} vs FP32 {expected.norm().item():.3g})")

    def leaves_scaler_at(self, want: tuple, why: str) -> None:
        """The scaler's (scale_value, _growth_tracker) after the step."""
        check_equal(self.record["scaler"], want, f"(scale, good steps) after {why}")
