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

define dso_local i32 @main(i32 noundef %argc, i8** noundef %argv) #0 !dbg !279 {
entry:
  call void @llvm.dbg.value(metadata i32 %argc, metadata !283, metadata !DIExpression()), !dbg !291
  call void @llvm.dbg.value(metadata i8** %argv, metadata !284, metadata !DIExpression()), !dbg !291
  %cmp = icmp slt i32 %argc, 3, !dbg !292
  br i1 %cmp, label %if.then, label %if.end, !dbg !294

if.then:                                          ; preds = %entry
  %0 = load %struct._IO_FILE*, %struct._IO_FILE** @stderr, align 8, !dbg !295, !tbaa !297
  %arrayidx = getelementptr inbounds i8*, i8** %argv, i64 0, !dbg !299
  %1 = load i8*, i8** %arrayidx, align 8, !dbg !299, !tbaa !297
  %call = call i32 (%struct._IO_FILE*, i8*, ...) @fprintf(%struct._IO_FILE* noundef %0, i8* noundef getelementptr inbounds ([53 x i8], [53 x i8]* @.str, i64 0, i64 0), i8* noundef %1), !dbg !300
  br label %return, !dbg !301

if.end:                                           ; preds = %entry
  %arrayidx1 = getelementptr inbounds i8*, i8** %argv, i64 2, !dbg !302
  %2 = load i8*, i8** %arrayidx1, align 8, !dbg !302, !tbaa !297
  %call2 = call i32 @atoi(i8* noundef %2) #7, !dbg !303
  call void @llvm.dbg.value(metadata i32 %call2, metadata !285, metadata !DIExpression()), !dbg !291
  %cmp3 = icmp slt i32 %call2, 0, !dbg !304
  br i1 %cmp3, label %if.then5, label %lor.lhs.false, !dbg !306

lor.lhs.false:                                    ; preds = %if.end
  %cmp4 = icmp sgt i32 %call2, 128, !dbg !307
  br i1 %cmp4, label %if.then5, label %if.end7, !dbg !308

if.then5:                                         ; preds = %lor.lhs.false, %if.end
  %3 = load %struct._IO_FILE*, %struct._IO_FILE** @stderr, align 8, !dbg !309, !tbaa !297
  %call6 = call i32 (%struct._IO_FILE*, i8*, ...) @fprintf(%struct._IO_FILE* noundef %3, i8* noundef getelementptr inbounds ([20 x i8], [20 x i8]* @.str.1, i64 0, i64 0), i32 noundef 128), !dbg !311
  br label %cleanup65, !dbg !312

if.end7:                                          ; preds = %lor.lhs.false
  %conv = sext i32 %call2 to i64, !dbg !313
  %conv8 = sext i32 %call2 to i64, !dbg !314
  %mul = mul i64 %conv, %conv8, !dbg !315
  %add = add i64 %mul, 1, !dbg !316
  %call9 = call noalias i8* @calloc(i64 noundef %add, i64 noundef 8) #8, !dbg !317
  %4 = bitcast i8* %call9 to double*, !dbg !317
  call void @llvm.dbg.value(metadata double* %4, metadata !286, metadata !DIExpression()), !dbg !291
  %conv10 = sext i32 %call2 to i64, !dbg !318
  %conv11 = sext i32 %call2 to i64, !dbg !319
  %mul12 = mul i64 %conv10, %conv11, !dbg !320
  %add13 = add i64 %mul12, 1, !dbg !321
  %call14 = call noalias i8* @calloc(i64 noundef %add13, i64 noundef 8) #8, !dbg !322
  %5 = bitcast i8* %call14 to double*, !dbg !322
  call void @llvm.dbg.value(metadata double* %5, metadata !287, metadata !DIExpression()), !dbg !291
  %conv15 = sext i32 %call2 to i64, !dbg !323
  %conv16 = sext i32 %call2 to i64, !dbg !324
  %mul17 = mul i64 %conv15, %conv16, !dbg !325
  %add18 = add i64 %mul17, 1, !dbg !326
  %call19 = call noalias i8* @calloc(i64 noundef %add18, i64 noundef 8) #8, !dbg !327
  %6 = bitcast i8* %call19 to double*, !dbg !327
  call void @llvm.dbg.value(metadata double* %6, metadata !288, metadata !DIExpression()), !dbg !291
  call void @llvm.dbg.value(metadata i32 0, metadata !289, metadata !DIExpression()), !dbg !328
  %mul20 = mul i32 %call2, %call2, !dbg !329
  %cmp211 = icmp slt i32 0, %mul20, !dbg !331
  br i1 %cmp211, label %for.body.lr.ph, label %for.cond.cleanup, !dbg !332

for.body.lr.ph:                                   ; preds = %if.end7
  %wide.trip.count = zext i32 %mul20 to i64, !dbg !331
  br label %for.body, !dbg !332

for.cond.for.cond.cleanup_crit_edge:              ; preds = %for.inc
  br label %for.cond.cleanup, !dbg !332

for.cond.cleanup:                                 ; preds = %for.cond.for.cond.cleanup_crit_edge, %if.end7
  br label %for.end

for.body:                                         ; preds = %for.body.lr.ph, %for.inc
  %indvars.iv = phi i64 [ 0, %for.body.lr.ph ], [ %indvars.iv.next, %for.inc ]
  call void @llvm.dbg.value(metadata i64 %indvars.iv, metadata !289, metadata !DIExpression()), !dbg !328
  %7 = trunc i64 %indvars.iv to i32
  %rem.urem = urem i32 %7, 7
  %conv23 = sitofp i32 %rem.urem to double, !dbg !333
  %div = fdiv double %conv23, 7.000000e+00, !dbg !335
  %arrayidx24 = getelementptr inbounds double, double* %4, i64 %indvars.iv, !dbg !336
  store double %div, double* %arrayidx24, align 8, !dbg !337, !tbaa !63
  %8 = trunc i64 %indvars.iv to i32
  %rem25.urem = urem i32 %8, 5
  %conv26 = sitofp i32 %rem25.urem to double, !dbg !338
  %div27 = fdiv double %conv26, 5.000000e+00, !dbg !339
  %arrayidx29 = getelementptr inbounds double, double* %5, i64 %indvars.iv, !dbg !340
  store double %div27, double* %arrayidx29, align 8, !dbg !341, !tbaa !63
  br label %for.inc, !dbg !342

for.inc:                                          ; preds = %for.body
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1, !dbg !343
  call void @llvm.dbg.value(metadata i64 %indvars.iv.next, metadata !289, metadata !DIExpression()), !dbg !328
  %exitcond = icmp ne i64 %indvars.iv.next, %wide.trip.count, !dbg !331
  br i1 %exitcond, label %for.body, label %for.cond.for.cond.cleanup_crit_edge, !dbg !332, !llvm.loop !344

for.end:                                          ; preds = %for.cond.cleanup
  %arrayidx30 = getelementptr inbounds i8*, i8** %argv, i64 1, !dbg !346
  %9 = load i8*, i8** %arrayidx30, align 8, !dbg !346, !tbaa !297
  %call31 = call i32 @strcmp(i8* noundef %9, i8* noundef getelementptr inbounds ([7 x i8], [7 x i8]* @.str.2, i64 0, i64 0)) #7, !dbg !348
  %tobool = icmp ne i32 %call31, 0, !dbg !348
  br i1 %tobool, label %if.else, label %if.then32, !dbg !349

if.then32:                                        ; preds = %for.end
  call void @matmul(i32 noundef %call2, double* noundef %4, double* noundef %5, double* noundef %6), !dbg !350
  br label %if.end59, !dbg !350

if.else:                                          ; preds = %for.end
  %arrayidx33 = getelementptr inbounds i8*, i8** %argv, i64 1, !dbg !351
  %10 = load i8*, i8** %arrayidx33, align 8, !dbg !351, !tbaa !297
  %call34 = call i32 @strcmp(i8* noundef %10, i8* noundef getelementptr inbounds ([8 x i8], [8 x i8]* @.str.3, i64 0, i64 0)) #7, !dbg !353
  %tobool35 = icmp ne i32 %call34, 0, !dbg !353
  br i1 %tobool35, label %if.else37, label %if.then36, !dbg !354

if.then36:                                        ; preds = %if.else
  call void @stencil(i32 noundef %call2), !dbg !355
  br label %if.end58, !dbg !355

if.else37:                                        ; preds = %if.else
  %arrayidx38 = getelementptr inbounds i8*, i8** %argv, i64 1, !dbg !356
  %11 = load i8*, i8** %arrayidx38, align 8, !dbg !356, !tbaa !297
  %call39 = call i32 @strcmp(i8* noundef %11, i8* noundef getelementptr inbounds ([11 x i8], [11 x i8]* @.str.4, i64 0, i64 0)) #7, !dbg !358
  %tobool40 = icmp ne i32 %call39, 0, !dbg !358
  br i1 %tobool40, label %if.else42, label %if.then41, !dbg !359

if.then41:                                        ; preds = %if.else37
  call void @triangular(i32 noundef %call2, double* noundef %4), !dbg !360
  br label %if.end57, !dbg !360

if.else42:                                        ; preds = %if.else37
  %arrayidx43 = getelementptr inbounds i8*, i8** %argv, i64 1, !dbg !361
  %12 = load i8*, i8** %arrayidx43, align 8, !dbg !361, !tbaa !297
  %call44 = call i32 @strcmp(i8* noundef %12, i8* noundef getelementptr inbounds ([6 x i8], [6 x i8]* @.str.5, i64 0, i64 0)) #7, !dbg !363
  %tobool45 = icmp ne i32 %call44, 0, !dbg !363
  br i1 %tobool45, label %if.else47, label %if.then46, !dbg !364

if.then46:                                        ; preds = %if.else42
  call void @calls(i32 noundef %call2, double* noundef %4, double* noundef %5), !dbg !365
  br label %if.end56, !dbg !365

if.else47:                                        ; preds = %if.else42
  %arrayidx48 = getelementptr inbounds i8*, i8** %argv, i64 1, !dbg !366
  %13 = load i8*, i8** %arrayidx48, align 8, !dbg !366, !tbaa !297
  %call49 = call i32 @strcmp(i8* noundef %13, i8* noundef getelementptr inbounds ([8 x i8], [8 x i8]* @.str.6, i64 0, i64 0)) #7, !dbg !368
  %tobool50 = icmp ne i32 %call49, 0, !dbg !368
  br i1 %tobool50, label %if.else52, label %if.then51, !dbg !369

if.then51:                                        ; preds = %if.else47
  call void @branchy(i32 noundef %call2, double* noundef %4), !dbg !370
  br label %if.end55, !dbg !370

if.else52:                                        ; preds = %if.else47
  %14 = load %struct._IO_FILE*, %struct._IO_FILE** @stderr, align 8, !dbg !371, !tbaa !297
  %arrayidx53 = getelementptr inbounds i8*, i8** %argv, i64 1, !dbg !373
  %15 = load i8*, i8** %arrayidx53, align 8, !dbg !373, !tbaa !297
  %call54 = call i32 (%struct._IO_FILE*, i8*, ...) @fprintf(%struct._IO_FILE* noundef %14, i8* noundef getelementptr inbounds ([19 x i8], [19 x i8]* @.str.7, i64 0, i64 0), i8* noundef %15), !dbg !374
  br label %cleanup, !dbg !375

if.end55:                                         ; preds = %if.then51
  br label %if.end56

if.end56:                                         ; preds = %if.end55, %if.then46
  br label %if.end57

if.end57:                                         ; preds = %if.end56, %if.then41
  br label %if.end58

if.end58:                                         ; preds = %if.end57, %if.then36
  br label %if.end59

if.end59:                                         ; preds = %if.end58, %if.then32
  %arrayidx60 = getelementptr inbounds double, double* %6, i64 0, !dbg !376
  %16 = load double, double* %arrayidx60, align 8, !dbg !376, !tbaa !63
  %17 = load double, double* @total, align 8, !dbg !377, !tbaa !63
  %add61 = fadd double %16, %17, !dbg !378
  %18 = load double, double* getelementptr inbounds ([128 x [128 x double]], [128 x [128 x double]]* @G, i64 0, i64 1, i64 1), align 8, !dbg !379, !tbaa !63
  %call62 = call i32 (i8*, ...) @printf(i8* noundef getelementptr inbounds ([7 x i8], [7 x i8]* @.str.8, i64 0, i64 0), double noundef %add61, double noundef %18), !dbg !380
  %19 = bitcast double* %4 to i8*, !dbg !381
  call void @free(i8* noundef %19) #8, !dbg !382
  %20 = bitcast double* %5 to i8*, !dbg !383
  call void @free(i8* noundef %20) #8, !dbg !384
  %21 = bitcast double* %6 to i8*, !dbg !385
  call void @free(i8* noundef %21) #8, !dbg !386
  br label %cleanup, !dbg !387

cleanup:                                          ; preds = %if.end59, %if.else52
  %retval.0 = phi i32 [ 2, %if.else52 ], [ 0, %if.end59 ], !dbg !291
  br label %cleanup65

cleanup65:                                        ; preds = %cleanup, %if.then5
  %retval.1 = phi i32 [ 2, %if.then5 ], [ %retval.0, %cleanup ], !dbg !291
  br label %return

return:                                           ; preds = %cleanup65, %if.then
  %retval.2 = phi i32 [ 2, %if.then ], [ %retval.1, %cleanup65 ], !dbg !291
  ret i32 %retval.2, !dbg !388
}
