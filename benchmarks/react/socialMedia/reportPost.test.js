import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './reportPost';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('reports a post with the selected reason', async () => {
  fetchMock.post('/api/posts/88/reports', 201);

  await act(async () => { render(<App />); });
  await act(async () => {
    fireEvent.change(screen.getByTestId('report-reason'), { target: { value: 'spam' } });
  });
  await act(async () => { fireEvent.click(screen.getByText(/submit report/i)); });

  expect(fetchMock.calls('/api/posts/88/reports').length).toBe(1);
  expect(JSON.parse(fetchMock.lastOptions('/api/posts/88/reports').body)).toEqual({ reason: 'spam' });
  expect(screen.getByText(/report submitted/i)).toBeInTheDocument();
}, 10000);

test('shows the reason the report was refused', async () => {
  fetchMock.post('/api/posts/88/reports', {
    status: 429,
    body: { error: 'You have already reported this post' },
  });

  await act(async () => { render(<App />); });
  await act(async () => {
    fireEvent.change(screen.getByTestId('report-reason'), { target: { value: 'spam' } });
  });
  await act(async () => { fireEvent.click(screen.getByText(/submit report/i)); });

  expect(fetchMock.calls('/api/posts/88/reports').length).toBe(1);
  expect(screen.getByText('You have already reported this post')).toBeInTheDocument();
  expect(screen.queryByText(/report submitted/i)).not.toBeInTheDocument();
}, 10000);
