import torch

from pkg.losses import (
    Attached,
    CharbonnierLoss,
    ClassWeighted,
    EdgeLoss,
    PairLoss,
    Placed,
    ScaledLoss,
    SetThroughSetattr,
    SmoothedMSE,
    Tabled,
    WeightedLoss,
    Wrapped,
)

criterion = CharbonnierLoss().cuda()  # alone: TDV001
edges = EdgeLoss(eps=1e-6).cuda()  # alone: TDV001
smoothed = SmoothedMSE().to("cuda")  # alone: TDV001
weighted = WeightedLoss(3).cuda()  # expect: TDV001
wrapped = Wrapped(torch.nn.Linear(3, 3)).cuda()  # expect: TDV001
balanced = ClassWeighted(weight=torch.ones(3)).cuda()  # expect: TDV001
paired = PairLoss().cuda()  # expect: TDV001
scaled = ScaledLoss().cuda()  # expect: TDV001
placed = Placed().cuda()  # expect: TDV001
tabled = Tabled().cuda()  # expect: TDV001
set_through_setattr = SetThroughSetattr().cuda()  # expect: TDV001
attached = Attached().cuda()  # expect: TDV001
