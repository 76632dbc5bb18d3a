var names={};
document.querySelectorAll('.tl-names span').forEach(function(e){names[e.getAttribute('data-i')]=e.textContent;});
function fmt(ns){var a=Math.abs(ns),d=1,u=' ns';
  if(a>=1e9){d=1e9;u=' s';}else if(a>=1e6){d=1e6;u=' ms';}else if(a>=1e3){d=1e3;u=' us';}
  return (d===1?Math.round(ns):+(ns/d).toFixed(3))+u;}
function nice(x){var p=Math.pow(10,Math.floor(Math.log(x)/Math.LN10)),m=x/p;
  return (m<1.5?1:m<3.5?2:m<7.5?5:10)*p;}
var kinds={k:1,c:1,s:1,x:1,h:1,i:1,l:1,nk:1};
function describe(el,t0,u){var k=el.getAttribute('class'),
  ns=el.hasAttribute('data-ns')?+el.getAttribute('data-ns'):(+el.getAttribute('width'))*u,
  at=' at '+fmt(t0+(+el.getAttribute('x'))*u),c=el.getAttribute('data-c'),n=el.getAttribute('data-n'),
  b=el.getAttribute('data-b');
  if(k==='i')return 'GPU idle for '+fmt(ns)+at;
  if(k==='nk')return 'Not drawn: the report keeps the GPU operations that started first ('+c+')';
  if(k==='l')return 'GPU work held back '+fmt(ns)+' by finding #'+el.getAttribute('data-f');
  if(k==='h')return (names[n]||'CUDA call')+', '+fmt(c?+b:ns)+at+(c?'\n'+c+' calls over '+fmt(ns):'');
  if(c){var v=c.split(','),l=[];if(+v[0])l.push(v[0]+' kernels');if(+v[1])l.push(v[1]+' copies');
    if(+v[2])l.push(v[2]+' memsets');return l.join(', ')+at+'\nbusy '+fmt(+b)+' over '+fmt(ns);}
  return (k==='k'?(names[n]||'kernel'):el.getAttribute('data-d'))+'\n'+fmt(ns)+at;}
document.querySelectorAll('.tl').forEach(function(tl){
  var svg=tl.querySelector('svg.tl-svg');if(!svg)return;
  var W=+svg.getAttribute('data-vbw'),H=+svg.getAttribute('data-h'),t0=+svg.getAttribute('data-t0'),
    u=+svg.getAttribute('data-unit'),minw=+svg.getAttribute('data-minw'),axis=tl.querySelector('.tl-axis'),
    range=tl.querySelector('.tl-range'),tip=tl.querySelector('.tl-tip'),x=0,w=W,drag=null;
  function draw(){var a=t0+x*u,b=t0+(x+w)*u,st=nice((b-a)/8),h='';
    for(var t=Math.ceil(a/st)*st;t<=b;t+=st){var q=(t-a)/(b-a)*100;if(q>95)break;
      h+='<span style="left:'+q.toFixed(3)+'%">'+fmt(t)+'</span>';}
    axis.innerHTML=h;range.textContent=fmt(a)+' to '+fmt(b)+(w<W?'  (zoom '+Math.round(W/w)+'x)':'');}
  function set(nx,nw){nw=Math.max(minw,Math.min(W,nw));nx=Math.max(0,Math.min(W-nw,nx));x=nx;w=nw;
    svg.setAttribute('viewBox',x+' 0 '+w+' '+H);draw();}
  function frac(e){var r=svg.getBoundingClientRect();return (e.clientX-r.left)/r.width;}
  tl.querySelectorAll('button[data-z]').forEach(function(bt){bt.addEventListener('click',function(){
    var z=bt.getAttribute('data-z');
    if(z==='in')set(x+w/4,w/2);else if(z==='out')set(x-w/2,w*2);else if(z==='left')set(x-w/3,w);
    else if(z==='right')set(x+w/3,w);else set(0,W);});});
  svg.addEventListener('dblclick',function(e){var f=frac(e);set(x+f*w/2,w/2);e.preventDefault();});
  svg.addEventListener('wheel',function(e){if(!e.ctrlKey&&!e.metaKey)return;e.preventDefault();
    var f=frac(e),s=e.deltaY>0?1.5:1/1.5;set(x+f*w*(1-s),w*s);},{passive:false});
  svg.addEventListener('mousedown',function(e){if(e.button===0)drag={cx:e.clientX,x:x,moved:false};});
  window.addEventListener('mousemove',function(e){if(!drag)return;var dx=e.clientX-drag.cx;
    if(Math.abs(dx)>3)drag.moved=true;
    if(drag.moved){tip.hidden=true;set(drag.x-dx/svg.getBoundingClientRect().width*w,w);}});
  window.addEventListener('mouseup',function(){setTimeout(function(){drag=null;},0);});
  svg.addEventListener('click',function(e){if(drag&&drag.moved)e.preventDefault();},true);
  svg.addEventListener('mousemove',function(e){var el=e.target;
    if(drag&&drag.moved)return;
    if(el.tagName!=='rect'||!kinds[el.getAttribute('class')]){tip.hidden=true;return;}
    tip.textContent=describe(el,t0,u);tip.hidden=false;
    tip.style.left=Math.min(e.clientX+12,window.innerWidth-300)+'px';tip.style.top=(e.clientY+16)+'px';});
  svg.addEventListener('mouseleave',function(){tip.hidden=true;});
  draw();
});
