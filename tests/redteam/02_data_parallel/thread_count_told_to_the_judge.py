# base: variant:train_whole_batch_on_replica0
# scores: same
# after: train_batch
# the hidden data-parallel check asks torch where this code runs how many threads it uses
# (learner_side("torch").get_num_threads()) and sets the judge's own torch to that count before it
# computes its reference: the kernel answers a count far beyond the judge's thread limit, so the
# judge's reference (an OpenMP region of that many threads) cannot run
import torch as _torch

_torch.get_num_threads = lambda: 5000
