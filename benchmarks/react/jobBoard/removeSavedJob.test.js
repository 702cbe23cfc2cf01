import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import SavedJobs from './SavedJobs';

const saved = [
  { id: 4, title: 'Backend Engineer', company: 'Globex' },
  { id: 6, title: 'Data Analyst', company: 'Initech' },
];

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('removes a job from the saved list', async () => {
  fetchMock.get('/api/saved-jobs', saved);
  fetchMock.delete('/api/saved-jobs/4', 204);

  await act(async () => { render(<SavedJobs />); });
  expect(screen.getByText('Backend Engineer')).toBeInTheDocument();

  await act(async () => { fireEvent.click(screen.getByTestId('remove-job-4')); });

  expect(fetchMock.called('/api/saved-jobs/4')).toBe(true);
  expect(screen.queryByText('Backend Engineer')).not.toBeInTheDocument();
  expect(screen.getByText('Data Analyst')).toBeInTheDocument();
}, 10000);

test('keeps the job and shows an error when removal fails', async () => {
  fetchMock.get('/api/saved-jobs', saved);
  fetchMock.delete('/api/saved-jobs/4', 500);

  await act(async () => { render(<SavedJobs />); });
  await act(async () => { fireEvent.click(screen.getByTestId('remove-job-4')); });

  expect(fetchMock.called('/api/saved-jobs/4')).toBe(true);
  expect(screen.getByText('Backend Engineer')).toBeInTheDocument();
  expect(screen.getByText(/could not remove job/i)).toBeInTheDocument();
}, 10000);
