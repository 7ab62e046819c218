-- A HuggingFace model's checkpoint served by an external engine (trainer.export-onnx=false) has no ONNX graph.
ALTER TABLE checkpoints ALTER COLUMN onnx_sha256 DROP NOT NULL;
