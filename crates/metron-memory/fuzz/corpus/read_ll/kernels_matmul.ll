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

define dso_local void @matmul(i32 noundef %n, double* noundef %A, double* noundef %B, double* noundef %C) #0 !dbg !29 {
entry:
  call void @llvm.dbg.value(metadata i32 %n, metadata !34, metadata !DIExpression()), !dbg !48
  call void @llvm.dbg.value(metadata double* %A, metadata !35, metadata !DIExpression()), !dbg !48
  call void @llvm.dbg.value(metadata double* %B, metadata !36, metadata !DIExpression()), !dbg !48
  call void @llvm.dbg.value(metadata double* %C, metadata !37, metadata !DIExpression()), !dbg !48
  call void @llvm.dbg.value(metadata i32 0, metadata !38, metadata !DIExpression()), !dbg !49
  %cmp7 = icmp slt i32 0, %n, !dbg !50
  br i1 %cmp7, label %for.body.lr.ph, label %for.cond.cleanup, !dbg !51

for.body.lr.ph:                                   ; preds = %entry
  %0 = sext i32 %n to i64, !dbg !51
  %1 = sext i32 %n to i64, !dbg !51
  %2 = sext i32 %n to i64, !dbg !51
  %wide.trip.count24 = zext i32 %n to i64, !dbg !50
  br label %for.body, !dbg !51

for.cond.for.cond.cleanup_crit_edge:              ; preds = %for.inc21
  br label %for.cond.cleanup, !dbg !51

for.cond.cleanup:                                 ; preds = %for.cond.for.cond.cleanup_crit_edge, %entry
  br label %for.end23

for.body:                                         ; preds = %for.body.lr.ph, %for.inc21
  %indvars.iv19 = phi i64 [ 0, %for.body.lr.ph ], [ %indvars.iv.next20, %for.inc21 ]
  call void @llvm.dbg.value(metadata i64 %indvars.iv19, metadata !38, metadata !DIExpression()), !dbg !49
  call void @llvm.dbg.value(metadata i32 0, metadata !40, metadata !DIExpression()), !dbg !52
  %cmp24 = icmp slt i32 0, %n, !dbg !53
  br i1 %cmp24, label %for.body4.lr.ph, label %for.cond.cleanup3, !dbg !54

for.body4.lr.ph:                                  ; preds = %for.body
  %wide.trip.count17 = zext i32 %n to i64, !dbg !53
  br label %for.body4, !dbg !54

for.cond1.for.cond.cleanup3_crit_edge:            ; preds = %for.inc18
  br label %for.cond.cleanup3, !dbg !54

for.cond.cleanup3:                                ; preds = %for.cond1.for.cond.cleanup3_crit_edge, %for.body
  br label %for.end20

for.body4:                                        ; preds = %for.body4.lr.ph, %for.inc18
  %indvars.iv13 = phi i64 [ 0, %for.body4.lr.ph ], [ %indvars.iv.next14, %for.inc18 ]
  call void @llvm.dbg.value(metadata i64 %indvars.iv13, metadata !40, metadata !DIExpression()), !dbg !52
  call void @llvm.dbg.value(metadata double 0.000000e+00, metadata !43, metadata !DIExpression()), !dbg !55
  call void @llvm.dbg.value(metadata i32 0, metadata !46, metadata !DIExpression()), !dbg !56
  %cmp61 = icmp slt i32 0, %n, !dbg !57
  br i1 %cmp61, label %for.body8.lr.ph, label %for.cond.cleanup7, !dbg !59

for.body8.lr.ph:                                  ; preds = %for.body4
  %wide.trip.count = zext i32 %n to i64, !dbg !57
  br label %for.body8, !dbg !59

for.cond5.for.cond.cleanup7_crit_edge:            ; preds = %for.inc
  %split = phi double [ %9, %for.inc ]
  br label %for.cond.cleanup7, !dbg !59

for.cond.cleanup7:                                ; preds = %for.cond5.for.cond.cleanup7_crit_edge, %for.body4
  %s.0.lcssa = phi double [ %split, %for.cond5.for.cond.cleanup7_crit_edge ], [ 0.000000e+00, %for.body4 ], !dbg !55
  br label %for.end

for.body8:                                        ; preds = %for.body8.lr.ph, %for.inc
  %indvars.iv = phi i64 [ 0, %for.body8.lr.ph ], [ %indvars.iv.next, %for.inc ]
  %s.02 = phi double [ 0.000000e+00, %for.body8.lr.ph ], [ %9, %for.inc ]
  call void @llvm.dbg.value(metadata i64 %indvars.iv, metadata !46, metadata !DIExpression()), !dbg !56
  call void @llvm.dbg.value(metadata double %s.02, metadata !43, metadata !DIExpression()), !dbg !55
  %3 = mul nsw i64 %indvars.iv19, %2, !dbg !60
  %4 = add nsw i64 %3, %indvars.iv, !dbg !61
  %arrayidx = getelementptr inbounds double, double* %A, i64 %4, !dbg !62
  %5 = load double, double* %arrayidx, align 8, !dbg !62, !tbaa !63
  %6 = mul nsw i64 %indvars.iv, %0, !dbg !67
  %7 = add nsw i64 %6, %indvars.iv13, !dbg !68
  %arrayidx12 = getelementptr inbounds double, double* %B, i64 %7, !dbg !69
  %8 = load double, double* %arrayidx12, align 8, !dbg !69, !tbaa !63
  %9 = call double @llvm.fmuladd.f64(double %5, double %8, double %s.02), !dbg !70
  call void @llvm.dbg.value(metadata double %9, metadata !43, metadata !DIExpression()), !dbg !55
  br label %for.inc, !dbg !71

for.inc:                                          ; preds = %for.body8
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1, !dbg !72
  call void @llvm.dbg.value(metadata i64 %indvars.iv.next, metadata !46, metadata !DIExpression()), !dbg !56
  call void @llvm.dbg.value(metadata double %9, metadata !43, metadata !DIExpression()), !dbg !55
  %exitcond = icmp ne i64 %indvars.iv.next, %wide.trip.count, !dbg !57
  br i1 %exitcond, label %for.body8, label %for.cond5.for.cond.cleanup7_crit_edge, !dbg !59, !llvm.loop !73

for.end:                                          ; preds = %for.cond.cleanup7
  %10 = mul nsw i64 %indvars.iv19, %1, !dbg !77
  %11 = add nsw i64 %10, %indvars.iv13, !dbg !78
  %arrayidx17 = getelementptr inbounds double, double* %C, i64 %11, !dbg !79
  store double %s.0.lcssa, double* %arrayidx17, align 8, !dbg !80, !tbaa !63
  br label %for.inc18, !dbg !81

for.inc18:                                        ; preds = %for.end
  %indvars.iv.next14 = add nuw nsw i64 %indvars.iv13, 1, !dbg !82
  call void @llvm.dbg.value(metadata i64 %indvars.iv.next14, metadata !40, metadata !DIExpression()), !dbg !52
  %exitcond18 = icmp ne i64 %indvars.iv.next14, %wide.trip.count17, !dbg !53
  br i1 %exitcond18, label %for.body4, label %for.cond1.for.cond.cleanup3_crit_edge, !dbg !54, !llvm.loop !83

for.end20:                                        ; preds = %for.cond.cleanup3
  br label %for.inc21, !dbg !84

for.inc21:                                        ; preds = %for.end20
  %indvars.iv.next20 = add nuw nsw i64 %indvars.iv19, 1, !dbg !85
  call void @llvm.dbg.value(metadata i64 %indvars.iv.next20, metadata !38, metadata !DIExpression()), !dbg !49
  %exitcond25 = icmp ne i64 %indvars.iv.next20, %wide.trip.count24, !dbg !50
  br i1 %exitcond25, label %for.body, label %for.cond.for.cond.cleanup_crit_edge, !dbg !51, !llvm.loop !86

for.end23:                                        ; preds = %for.cond.cleanup
  ret void, !dbg !88
}
