# cell: split_batch
# scores: full
# numpy.array_split of the sample indices gives the balanced contiguous ranges; each shard is
# X and y indexed by its range (copies rather than views: the contract asks for neither).
import numpy as np

if len(X) != len(y):
    raise ValueError(f"len(X) = {len(X)} but len(y) = {len(y)}")
if len(X) < num_devices:
    raise ValueError(f"{len(X)} samples are fewer than {num_devices} devices")
return [(X[idx], y[idx]) for idx in map(torch.from_numpy, np.array_split(np.arange(len(X)), num_devices))]
