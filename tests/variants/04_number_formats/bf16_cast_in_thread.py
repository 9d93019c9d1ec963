# cell: round_to_bf16
# loses: test_round_to_bf16_no_cast
import threading

result = []
dtype = torch.bfloat16  # named outside any call
worker = threading.Thread(target=lambda: result.append(x.to(dtype).float()))  # hooks are per thread
worker.start()
worker.join()
return result[0]
