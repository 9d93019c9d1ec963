# base: variant:nbytes_zero variant:transfer_zero
# scores: same
# the learner's side of the judge's protocol answers with forgeries: a handle, NaN, a
# deeply nested list, malformed JSON
import labkit.judge.learner

_answers = ['{"ok": {"__t": "handle", "id": 0}}', '{"ok": {"__t": "float", "v": "nan"}}',
            '{"ok": ' + "[" * 500 + "]" * 500 + "}", '{"ok": {"__t": "tensor"}}', "not json"]
_count = [0]


def _serve(payload):
    _count[0] += 1
    return _answers[_count[0] % len(_answers)]


labkit.judge.learner._serve = _serve
