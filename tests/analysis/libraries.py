# Batches and models from the libraries around torch, as knowledge/libraries states them. Never run:
# the libraries need not be installed.
import torch
from allennlp.data.data_loaders import MultiProcessDataLoader
from torch.utils.data import DataLoader, TensorDataset
from torchtext.data import BucketIterator
from torchvision import datasets, transforms
from transformers import AutoModel, AutoTokenizer

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

# torch: default_collate stacks a dataset's tensors where they are.
on_device = TensorDataset(torch.randn(8, 4, device=device), torch.zeros(8, device=device))
for inputs, labels in DataLoader(on_device, batch_size=4):
    reveal(inputs)  # reveal: tensor {device}
host = TensorDataset(torch.randn(8, 4))
reveal(host[0])  # reveal: sequence(tensor {cpu})
for (inputs,) in DataLoader(dataset=host):
    reveal(inputs)  # reveal: tensor {cpu}

# torchtext: batches on the CPU unless the iterator is built with device=.
train_iter, valid_iter = BucketIterator.splits((train, valid), batch_size=32)
for batch in train_iter:
    reveal(batch.text)  # reveal: tensor {cpu}
for batch in BucketIterator(valid, batch_size=32, device=device):
    reveal(batch.label)  # reveal: tensor {device}
for batch in BucketIterator(valid, batch_size=32, device=0):
    reveal(batch.label)  # reveal: tensor
for batch in BucketIterator(valid, batch_size=32, device=None):
    reveal(batch.label)  # reveal: tensor {cpu}

# AllenNLP: TensorDicts, on the CPU unless cuda_device= or set_target_device().
loader = MultiProcessDataLoader(reader, "train.txt", batch_size=8)
for batch in loader:
    reveal(batch)  # reveal: mapping[tensor {cpu}]
loader.set_target_device(device)
for batch in loader:
    reveal(batch)  # reveal: mapping[tensor {device}]
for batch in MultiProcessDataLoader(reader, "train.txt", batch_size=8, cuda_device=device):
    reveal(batch["tokens"])  # reveal: tensor {device}

# torchvision: to-tensor transforms make CPU tensors; Compose keeps what its last steps keep.
to_tensor = transforms.Compose([transforms.Resize(32), transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,))])
reveal(to_tensor(picture))  # reveal: tensor {cpu}
reveal(transforms.ToTensor()(picture))  # reveal: tensor {cpu}
custom = transforms.Compose([transforms.ToTensor(), transforms.Lambda(lambda x: x.to(device))])
reveal(custom(picture))  # reveal: unknown
mnist = datasets.MNIST("data", train=False, transform=to_tensor)
image, label = mnist[0]
reveal(image)  # reveal: tensor {cpu}
reveal(label)  # reveal: scalar
pictures = datasets.CIFAR10("data", target_transform=encode)
picture, target = pictures[3]
reveal(picture)  # reveal: unknown
reveal(target)  # reveal: unknown

# transformers: a tokenizer's tensors are on the CPU; device_map= with one device places the model.
tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")
encoded = tokenizer("text", return_tensors="pt")  # reveal: mapping[tensor {cpu}]
ids = tokenizer.encode("text", return_tensors="pt")  # reveal: tensor {cpu}
model = AutoModel.from_pretrained("bert-base-uncased", device_map="cuda:0")  # reveal: module {"cuda:0"}
model = AutoModel.from_pretrained("bert-base-uncased", device_map={"": 0})  # reveal: module {cuda:0}
model = AutoModel.from_pretrained("bert-base-uncased", device_map=device)  # reveal: module {device}
model = AutoModel.from_pretrained("bert-base-uncased", device_map="auto")  # reveal: module {module:device_map}
model = AutoModel.from_pretrained("bert-base-uncased", device_map="cpu")  # reveal: module {cpu}
model = AutoModel.from_pretrained("bert-base-uncased").to(device)
reveal(model.generate(ids.to(device)))  # reveal: output {device}
quantized = AutoModel.from_pretrained("llama", quantization_config=config)  # reveal: module {quantization_config}
quantized = AutoModel.from_pretrained("llama", load_in_8bit=True, device_map="cuda")  # reveal: module {module:device_map}
chat = tokenizer.apply_chat_template(messages, return_tensors="pt")  # reveal: tensor {cpu}
chat = tokenizer.apply_chat_template(messages, return_dict=True, return_tensors="pt")  # reveal: mapping[tensor {cpu}]
