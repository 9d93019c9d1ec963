# cell: split_batch
# loses: test_split_batch
# Splits through NumPy's array_split (right sizes, first shards larger) and converts back. Works
# for CPU float32/int64 tensors only: .numpy() refuses bfloat16 tensors, tensors that require grad
# and tensors on a GPU or the meta device. Breaks "X and y are PyTorch tensors" (any dtype and
# device; the shards must be slices of them).
import numpy as np
if len(X) != len(y):
    raise ValueError(f"X has {len(X)} samples but y has {len(y)}")
if len(X) < num_devices:
    raise ValueError(f"{len(X)} samples cannot be split over {num_devices} devices")
X_parts = np.array_split(X.numpy(), num_devices)
y_parts = np.array_split(y.numpy(), num_devices)
return [(torch.from_numpy(a), torch.from_numpy(b)) for a, b in zip(X_parts, y_parts)]
