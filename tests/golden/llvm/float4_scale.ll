; kernel float4_scale (LLVM IR, rendered by Loupe)
define void @float4_scale(ptr noalias %data0, ptr noalias readonly %data1, i64 %loop_start, i64 %loop_end) nounwind {
entry:
  br label %loop0.pre
loop0.pre:
  br label %loop0.head
loop0.head:
  %ridx0 = phi i64 [ %loop_start, %loop0.pre ], [ %ridx0.next, %loop0.latch ]
  %ridx0.more = icmp slt i64 %ridx0, %loop_end
  br i1 %ridx0.more, label %loop0.body, label %loop0.exit
loop0.body:
  %v0 = mul i64 %ridx0, 4
  %v1 = getelementptr inbounds float, ptr %data0, i64 %v0
  %v2 = getelementptr inbounds float, ptr %data1, i64 %v0
  %v3 = load <4 x float>, ptr %v2, align 4
  %v4 = extractelement <4 x float> %v3, i32 0
  %v5 = fmul float %v4, 0x4000000000000000
  %v6 = extractelement <4 x float> %v3, i32 1
  %v7 = fmul float %v6, 0x4000000000000000
  %v8 = extractelement <4 x float> %v3, i32 2
  %v9 = fmul float %v8, 0x4000000000000000
  %v10 = extractelement <4 x float> %v3, i32 3
  %v11 = fmul float %v10, 0x4000000000000000
  %v12 = insertelement <4 x float> poison, float %v5, i32 0
  %v13 = insertelement <4 x float> %v12, float %v7, i32 1
  %v14 = insertelement <4 x float> %v13, float %v9, i32 2
  %v15 = insertelement <4 x float> %v14, float %v11, i32 3
  %v16 = sitofp i64 %ridx0 to float
  %v17 = insertelement <4 x float> poison, float %v16, i32 0
  %v18 = insertelement <4 x float> %v17, float %v16, i32 1
  %v19 = insertelement <4 x float> %v18, float %v16, i32 2
  %v20 = insertelement <4 x float> %v19, float %v16, i32 3
  %v21 = extractelement <4 x float> %v15, i32 0
  %v22 = extractelement <4 x float> %v20, i32 0
  %v23 = fadd float %v21, %v22
  %v24 = extractelement <4 x float> %v15, i32 1
  %v25 = extractelement <4 x float> %v20, i32 1
  %v26 = fadd float %v24, %v25
  %v27 = extractelement <4 x float> %v15, i32 2
  %v28 = extractelement <4 x float> %v20, i32 2
  %v29 = fadd float %v27, %v28
  %v30 = extractelement <4 x float> %v15, i32 3
  %v31 = extractelement <4 x float> %v20, i32 3
  %v32 = fadd float %v30, %v31
  %v33 = insertelement <4 x float> poison, float %v23, i32 0
  %v34 = insertelement <4 x float> %v33, float %v26, i32 1
  %v35 = insertelement <4 x float> %v34, float %v29, i32 2
  %v36 = insertelement <4 x float> %v35, float %v32, i32 3
  store <4 x float> %v36, ptr %v1, align 4
  br label %loop0.latch
loop0.latch:
  %ridx0.next = add i64 %ridx0, 1
  br label %loop0.head
loop0.exit:
  ret void
}
