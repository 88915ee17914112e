target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"
%struct._IO_FILE = type { i32, i8*, i8*, i8*, i8*, i8*, i8*, i8*, i8*, i8*, i8*, i8*, %struct._IO_marker*, %struct._IO_FILE*, i32, i32, i64, i16, i8, [1 x i8], i8*, i64, %struct._IO_codecvt*, %struct._IO_wide_data*, %struct._IO_FILE*, i8*, i64, i32, [20 x i8] }
%struct._IO_marker = type opaque
%struct._IO_codecvt = type opaque
%struct._IO_wide_data = type opaque
@G = dso_local global [128 x [128 x double]] zeroinitializer, align 16, !dbg !0
@H = dso_local global [128 x [128 x double]] zeroinitializer, align 16, !dbg !15
@total = dso_local global double 0.000000e+00, align 8, !dbg !20
@stderr = external global %struct._IO_FILE*, align 8
@.str = private unnamed_addr constant [53 x i8] c"usage: %s matmul|stencil|triangular|calls|branchy N\0A\00", align 1
@.str.1 = private unnamed_addr constant [20 x i8] c"N must be in 0..%d\0A\00", align 1
@.str.2 = private unnamed_addr constant [7 x i8] c"matmul\00", align 1
@.str.3 = private unnamed_addr constant [8 x i8] c"stencil\00", align 1
@.str.4 = private unnamed_addr constant [11 x i8] c"triangular\00", align 1
@.str.5 = private unnamed_addr constant [6 x i8] c"calls\00", align 1
@.str.6 = private unnamed_addr constant [8 x i8] c"branchy\00", align 1
@.str.7 = private unnamed_addr constant [19 x i8] c"unknown kernel %s\0A\00", align 1
@.str.8 = private unnamed_addr constant [7 x i8] c"%g %g\0A\00", align 1

define dso_local void @triangular(i32 noundef %n, double* noundef %x) #0 !dbg !154 {
entry:
  call void @llvm.dbg.value(metadata i32 %n, metadata !158, metadata !DIExpression()), !dbg !170
  call void @llvm.dbg.value(metadata double* %x, metadata !159, metadata !DIExpression()), !dbg !170
  call void @llvm.dbg.value(metadata i32 0, metadata !160, metadata !DIExpression()), !dbg !171
  %cmp3 = icmp slt i32 0, %n, !dbg !172
  br i1 %cmp3, label %for.body.lr.ph, label %for.cond.cleanup, !dbg !173

for.body.lr.ph:                                   ; preds = %entry
  %wide.trip.count19 = zext i32 %n to i64, !dbg !172
  br label %for.body, !dbg !173

for.cond.for.cond.cleanup_crit_edge:              ; preds = %for.inc9
  br label %for.cond.cleanup, !dbg !173

for.cond.cleanup:                                 ; preds = %for.cond.for.cond.cleanup_crit_edge, %entry
  br label %for.end11

for.body:                                         ; preds = %for.body.lr.ph, %for.inc9
  %indvars.iv14 = phi i64 [ 0, %for.body.lr.ph ], [ %indvars.iv.next15, %for.inc9 ]
  %indvars.iv12 = phi i64 [ 1, %for.body.lr.ph ], [ %indvars.iv.next13, %for.inc9 ]
  call void @llvm.dbg.value(metadata i64 %indvars.iv14, metadata !160, metadata !DIExpression()), !dbg !171
  call void @llvm.dbg.value(metadata i32 0, metadata !162, metadata !DIExpression()), !dbg !174
  br label %for.body4, !dbg !175

for.cond.cleanup3:                                ; preds = %for.inc
  br label %for.end

for.body4:                                        ; preds = %for.body, %for.inc
  %indvars.iv = phi i64 [ 0, %for.body ], [ %indvars.iv.next, %for.inc ]
  call void @llvm.dbg.value(metadata i64 %indvars.iv, metadata !162, metadata !DIExpression()), !dbg !174
  %arrayidx = getelementptr inbounds double, double* %x, i64 %indvars.iv, !dbg !176
  %0 = load double, double* %arrayidx, align 8, !dbg !176, !tbaa !63
  %mul = fmul double %0, 2.000000e+00, !dbg !178
  %arrayidx6 = getelementptr inbounds [128 x [128 x double]], [128 x [128 x double]]* @G, i64 0, i64 %indvars.iv14, !dbg !179
  %arrayidx8 = getelementptr inbounds [128 x double], [128 x double]* %arrayidx6, i64 0, i64 %indvars.iv, !dbg !179
  store double %mul, double* %arrayidx8, align 8, !dbg !180, !tbaa !63
  br label %for.inc, !dbg !179

for.inc:                                          ; preds = %for.body4
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1, !dbg !181
  call void @llvm.dbg.value(metadata i64 %indvars.iv.next, metadata !162, metadata !DIExpression()), !dbg !174
  %exitcond = icmp ne i64 %indvars.iv.next, %indvars.iv12, !dbg !182
  br i1 %exitcond, label %for.body4, label %for.cond.cleanup3, !dbg !175, !llvm.loop !183

for.end:                                          ; preds = %for.cond.cleanup3
  br label %for.inc9, !dbg !184

for.inc9:                                         ; preds = %for.end
  %indvars.iv.next15 = add nuw nsw i64 %indvars.iv14, 1, !dbg !185
  call void @llvm.dbg.value(metadata i64 %indvars.iv.next15, metadata !160, metadata !DIExpression()), !dbg !171
  %indvars.iv.next13 = add nuw nsw i64 %indvars.iv12, 1, !dbg !173
  %exitcond20 = icmp ne i64 %indvars.iv.next15, %wide.trip.count19, !dbg !172
  br i1 %exitcond20, label %for.body, label %for.cond.for.cond.cleanup_crit_edge, !dbg !173, !llvm.loop !186

for.end11:                                        ; preds = %for.cond.cleanup
  call void @llvm.dbg.value(metadata i32 0, metadata !165, metadata !DIExpression()), !dbg !188
  %cmp147 = icmp slt i32 0, %n, !dbg !189
  br i1 %cmp147, label %for.body16.lr.ph, label %for.cond.cleanup15, !dbg !190

for.body16.lr.ph:                                 ; preds = %for.end11
  %1 = sext i32 %n to i64, !dbg !190
  %wide.trip.count30 = zext i32 %n to i64, !dbg !189
  br label %for.body16, !dbg !190

for.cond13.for.cond.cleanup15_crit_edge:          ; preds = %for.inc30
  br label %for.cond.cleanup15, !dbg !190

for.cond.cleanup15:                               ; preds = %for.cond13.for.cond.cleanup15_crit_edge, %for.end11
  br label %for.end32

for.body16:                                       ; preds = %for.body16.lr.ph, %for.inc30
  %indvars.iv27 = phi i64 [ 0, %for.body16.lr.ph ], [ %indvars.iv.next28, %for.inc30 ]
  %indvars.iv21 = phi i64 [ 1, %for.body16.lr.ph ], [ %indvars.iv.next22, %for.inc30 ]
  call void @llvm.dbg.value(metadata i64 %indvars.iv27, metadata !165, metadata !DIExpression()), !dbg !188
  %indvars.iv.next28 = add nuw nsw i64 %indvars.iv27, 1, !dbg !191
  call void @llvm.dbg.value(metadata i64 %indvars.iv.next28, metadata !167, metadata !DIExpression()), !dbg !192
  %cmp195 = icmp slt i64 %indvars.iv.next28, %1, !dbg !193
  br i1 %cmp195, label %for.body21.lr.ph, label %for.cond.cleanup20, !dbg !195

for.body21.lr.ph:                                 ; preds = %for.body16
  %wide.trip.count = zext i32 %n to i64, !dbg !193
  br label %for.body21, !dbg !195

for.cond18.for.cond.cleanup20_crit_edge:          ; preds = %for.inc27
  br label %for.cond.cleanup20, !dbg !195

for.cond.cleanup20:                               ; preds = %for.cond18.for.cond.cleanup20_crit_edge, %for.body16
  br label %for.end29

for.body21:                                       ; preds = %for.body21.lr.ph, %for.inc27
  %indvars.iv23 = phi i64 [ %indvars.iv21, %for.body21.lr.ph ], [ %indvars.iv.next24, %for.inc27 ]
  call void @llvm.dbg.value(metadata i64 %indvars.iv23, metadata !167, metadata !DIExpression()), !dbg !192
  %arrayidx23 = getelementptr inbounds [128 x [128 x double]], [128 x [128 x double]]* @G, i64 0, i64 %indvars.iv27, !dbg !196
  %arrayidx25 = getelementptr inbounds [128 x double], [128 x double]* %arrayidx23, i64 0, i64 %indvars.iv23, !dbg !196
  %2 = load double, double* %arrayidx25, align 8, !dbg !196, !tbaa !63
  %3 = load double, double* @total, align 8, !dbg !197, !tbaa !63
  %add26 = fadd double %3, %2, !dbg !197
  store double %add26, double* @total, align 8, !dbg !197, !tbaa !63
  br label %for.inc27, !dbg !198

for.inc27:                                        ; preds = %for.body21
  %indvars.iv.next24 = add nuw nsw i64 %indvars.iv23, 1, !dbg !199
  call void @llvm.dbg.value(metadata i64 %indvars.iv.next24, metadata !167, metadata !DIExpression()), !dbg !192
  %exitcond26 = icmp ne i64 %indvars.iv.next24, %wide.trip.count, !dbg !193
  br i1 %exitcond26, label %for.body21, label %for.cond18.for.cond.cleanup20_crit_edge, !dbg !195, !llvm.loop !200

for.end29:                                        ; preds = %for.cond.cleanup20
  br label %for.inc30, !dbg !201

for.inc30:                                        ; preds = %for.end29
  call void @llvm.dbg.value(metadata i64 %indvars.iv.next28, metadata !165, metadata !DIExpression()), !dbg !188
  %indvars.iv.next22 = add nuw nsw i64 %indvars.iv21, 1, !dbg !190
  %exitcond31 = icmp ne i64 %indvars.iv.next28, %wide.trip.count30, !dbg !189
  br i1 %exitcond31, label %for.body16, label %for.cond13.for.cond.cleanup15_crit_edge, !dbg !190, !llvm.loop !202

for.end32:                                        ; preds = %for.cond.cleanup15
  ret void, !dbg !204
}
