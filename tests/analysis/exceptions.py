# try / except / else / finally: handlers start from any state along the body.
import torch


def handler_sees_body_states():
    data = torch.zeros(3)
    try:
        data = data.cuda()
        risky()
    except RuntimeError:
        reveal(data)  # reveal: tensor may{"cuda", cpu}
        data = data.cpu()
    reveal(data)  # reveal: tensor may{"cuda", cpu}


def else_clause():
    data = torch.zeros(3)
    try:
        risky()
    except ValueError:
        return None
    else:
        data = data.cuda()
    reveal(data)  # reveal: tensor {"cuda"}


def handler_that_leaves():
    try:
        data = torch.zeros(1).cuda()
    except Exception:
        raise
    finally:
        cleanup()
    reveal(data)  # reveal: tensor {"cuda"}
